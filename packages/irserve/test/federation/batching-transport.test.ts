import { describe, expect, it } from 'vitest';
import { IrserveError } from '../../src/errors.js';
import { BatchingTransport } from '../../src/federation/batching-transport.js';
import { parseAvail } from '../../src/federation/remote-avail.js';
import type { RemoteCallOptions } from '../../src/federation/remote-client.js';
import type { RemoteTransport } from '../../src/federation/remote-transport.js';

interface Sent {
  path: string;
  body: { requests?: { endpoint: string; body: unknown }[] };
  options: RemoteCallOptions | undefined;
}

/** A remote that answers each batch with `answer(requests)`. */
function fakeRemote(answer: (sent: Sent) => unknown): RemoteTransport & { sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    endpoint: 'http://remote:8000',
    unreachableSince: undefined,
    sent,
    get: async () => ({}),
    post: async (path, body, options) => {
      const call = { path, body: body as Sent['body'], options };
      sent.push(call);
      const value = answer(call);
      if (value instanceof Error) throw value;
      return value;
    },
    close: async () => {},
  };
}

const ok = (sent: Sent) => ({
  responses: sent.body.requests!.map(({ body }) => ({ status: 200, body: { echo: body } })),
});

describe('BatchingTransport', () => {
  it('sends the calls of one tick as one batch and hands each caller its own answer', async () => {
    const remote = fakeRemote(ok);
    const transport = new BatchingTransport(remote, '/batch');
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((query) =>
        transport.post('/search', { service: 's', query }, { hops: 0, requestId: query }),
      ),
    );
    expect(remote.sent).toHaveLength(1);
    expect(remote.sent[0]!.path).toBe('/batch');
    expect(remote.sent[0]!.body.requests!.map((r) => r.endpoint)).toEqual([
      'search',
      'search',
      'search',
    ]);
    expect(answers).toEqual(['a', 'b', 'c'].map((query) => ({ echo: { service: 's', query } })));
  });

  it('keeps different hop counts in different batches, and other paths out of batches', async () => {
    const remote = fakeRemote((sent) => (sent.path === '/batch' ? ok(sent) : { content: 1 }));
    const transport = new BatchingTransport(remote, '/batch');
    await Promise.all([
      transport.post('/search', { q: 1 }, { hops: 0 }),
      transport.post('/score', { q: 2 }, { hops: 1 }),
      transport.post('/content', { id: 'x' }, { hops: 0 }),
    ]);
    const batches = remote.sent.filter((s) => s.path === '/batch');
    expect(batches.map((b) => b.options?.hops).sort()).toEqual([0, 1]);
    expect(remote.sent.filter((s) => s.path === '/content')).toHaveLength(1);
  });

  it('splits more calls than one batch holds', async () => {
    const remote = fakeRemote(ok);
    const transport = new BatchingTransport(remote, '/batch');
    await Promise.all(Array.from({ length: 300 }, (_, i) => transport.post('/search', { i })));
    expect(remote.sent.length).toBeGreaterThanOrEqual(3);
    expect(remote.sent.reduce((n, s) => n + s.body.requests!.length, 0)).toBe(300);
  });

  it('turns item errors into the errors a lone call raises', async () => {
    const remote = fakeRemote(() => ({
      responses: [
        { status: 400, body: { error: 'unknown service "x"', code: 'ERR_SERVICE_NOT_FOUND' } },
        { status: 500, body: { error: 'engine broke', code: 'ERR_ENGINE' } },
        { status: 504, body: { error: 'slow', code: 'ERR_UPSTREAM_TIMEOUT' } },
        { status: 400, body: { error: 'sneaky', code: 'ERR_INTERNAL' } },
      ],
    }));
    const transport = new BatchingTransport(remote, '/batch');
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((i) => transport.post('/search', { i })),
    );
    const codes = results.map((r) =>
      r.status === 'rejected' ? (r.reason as IrserveError).code : 'ok',
    );
    expect(codes).toEqual([
      'ERR_SERVICE_NOT_FOUND',
      'ERR_UPSTREAM',
      'ERR_UPSTREAM_TIMEOUT',
      'ERR_BAD_REQUEST',
    ]);
    const first = results[0] as PromiseRejectedResult;
    expect((first.reason as Error).message).toMatch(/remote http:\/\/remote:8000\/search/);
  });

  it.each([
    ['no responses', {}],
    ['too few responses', { responses: [{ status: 200, body: {} }] }],
    ['not an object', 'garbage'],
  ])('fails every call of a batch answered with %s', async (_label, answer) => {
    const transport = new BatchingTransport(
      fakeRemote(() => answer),
      '/batch',
    );
    const results = await Promise.allSettled([
      transport.post('/search', { a: 1 }),
      transport.post('/search', { b: 1 }),
    ]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_UPSTREAM' });
    }
  });

  it('fails every call when the batch request itself fails', async () => {
    const failure = new IrserveError('ERR_UPSTREAM_TIMEOUT', 'remote timed out');
    const transport = new BatchingTransport(
      fakeRemote(() => failure),
      '/batch',
    );
    const results = await Promise.allSettled([
      transport.post('/fuse', {}),
      transport.post('/fuse', {}),
    ]);
    expect(results.map((r) => (r as PromiseRejectedResult).reason)).toEqual([failure, failure]);
  });
});

describe('batch_endpoint in a remote /avail', () => {
  it.each([
    ['/batch', '/batch'],
    ['/v2/batch-calls', '/v2/batch-calls'],
    ['http://elsewhere/batch', undefined],
    ['/../admin', undefined],
    [42, undefined],
    ['', undefined],
  ])('reads %j as %j', (value, expected) => {
    expect(parseAvail({ search: ['s'], batch_endpoint: value }).batchPath).toBe(expected);
  });

  it('is absent from a RoutIR listing', () => {
    expect(parseAvail({ search: ['s'], score: [] }).batchPath).toBeUndefined();
  });
});
