import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, IrserveError, type ErrorCode } from '../../src/errors.js';
import { requestMessage, responseJson } from '../../src/transports/grpc/client-codec.js';
import { scoreBody, searchBody } from '../../src/transports/grpc/messages.js';
import { toStatus } from '../../src/transports/grpc/status.js';
import { fromStruct, toStruct } from '../../src/transports/grpc/struct.js';

describe('Struct codec', () => {
  it('round-trips JSON values', () => {
    const value = { a: 1, b: 'x', c: true, d: null, e: [1, 'two', { f: false }], g: { h: [] } };
    expect(fromStruct(JSON.parse(JSON.stringify(addKinds(toStruct(value)))))).toEqual(value);
    expect(fromStruct(undefined)).toEqual({});
  });
});

/** proto-loader names the oneof case in `kind`; add it as the decoder would. */
function addKinds(struct: ReturnType<typeof toStruct>): unknown {
  const walk = (value: Record<string, unknown>): Record<string, unknown> => {
    const kind = Object.keys(value)[0]!;
    const inner = value[kind];
    if (kind === 'structValue') return { kind, structValue: addKinds(inner as never) };
    if (kind === 'listValue')
      return { kind, listValue: { values: (inner as { values: never[] }).values.map(walk) } };
    return { ...value, kind };
  };
  return {
    fields: Object.fromEntries(
      Object.entries(struct.fields ?? {}).map(([k, v]) => [k, walk(v as never)]),
    ),
  };
}

describe('request bodies', () => {
  it('named fields win over extras, and unset optionals stay absent', () => {
    const body = searchBody({
      service: 's',
      query: 'q',
      extras: {
        fields: {
          query: { kind: 'stringValue', stringValue: 'evil' },
          x: { kind: 'numberValue', numberValue: 2 },
        },
      },
    });
    expect(body).toEqual({ service: 's', query: 'q', x: 2 });
  });

  it('bytes passages become base64 parts, as REST takes them', () => {
    const body = scoreBody({
      service: 's',
      query: 'q',
      passages: [
        { value: 'bytes', bytes: { parts: [Buffer.from('hi')] } },
        { value: 'text', text: 't' },
      ],
    });
    expect(body.passages).toEqual([['aGk='], 't']);
  });

  it('the client sends REST bodies as messages and reads answers back as REST JSON', () => {
    const message = requestMessage('Score', {
      service: 's',
      query: 'q',
      passages: ['t', ['aGk=']],
      custom: 1,
    });
    expect(message.passages).toEqual([{ text: 't' }, { bytes: { parts: [Buffer.from('hi')] } }]);
    expect(message.extras).toEqual({ fields: { custom: { numberValue: 1 } } });
    const content = responseJson('Content', {
      collection: 'c',
      id: 'd',
      content: 'data',
      data: { parts: [Buffer.from('hi')] },
      mimes: ['image/png'],
    });
    expect(content).toMatchObject({ kind: 'bytes', data: [{ data: 'aGk=', mime: 'image/png' }] });
  });
});

describe('status mapping', () => {
  it('every catalog code maps to its gRPC status and travels in the metadata', () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      const { status } = toStatus(new IrserveError(code, 'm'));
      expect(status.code).toBe(ERROR_CATALOG[code].grpc);
      expect(status.metadata?.get('x-irserve-error-code')).toEqual([code]);
    }
    expect(toStatus(new Error('boom')).status.code).toBe(13);
  });
});
