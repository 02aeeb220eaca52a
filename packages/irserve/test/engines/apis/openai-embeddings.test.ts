import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIEmbeddingsClient } from '../../../src/index.js';
import { IrserveError } from '../../../src/errors.js';
import { embeddingsReply, fakeApi, letterVector, type FakeApi } from './fake-api.js';

let api: FakeApi | undefined;
let client: OpenAIEmbeddingsClient | undefined;

afterEach(async () => {
  await client?.close();
  await api?.close();
  client = api = undefined;
});

async function setup(handler: Parameters<typeof fakeApi>[0], options = {}) {
  api = await fakeApi(handler);
  client = new OpenAIEmbeddingsClient({
    baseUrl: `${api.url}/v1`,
    model: 'emb',
    apiKey: 'sk-secret-key-123456',
    retries: 2,
    maxRetryWaitMs: 50,
    ...options,
  });
  return { api, client };
}

async function failure(promise: Promise<unknown>): Promise<IrserveError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IrserveError);
  return error as IrserveError;
}

describe('OpenAIEmbeddingsClient', () => {
  it('POSTs one request to {baseUrl}/embeddings and orders vectors by index', async () => {
    const { api, client } = await setup(embeddingsReply, { dimensions: 26 });
    const vectors = await client.embed(['cat', 'dog', 'bee']);
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.path).toBe('/v1/embeddings');
    expect(api.calls[0]!.headers.authorization).toBe('Bearer sk-secret-key-123456');
    expect(api.calls[0]!.body).toEqual({
      model: 'emb',
      input: ['cat', 'dog', 'bee'],
      dimensions: 26,
    });
    expect(vectors.map((v) => Array.from(v))).toEqual(['cat', 'dog', 'bee'].map(letterVector));
  });

  it('makes no call for no texts', async () => {
    const { api, client } = await setup(embeddingsReply);
    expect(await client.embed([])).toEqual([]);
    expect(api.calls).toHaveLength(0);
  });

  it('decodes base64 float32 embeddings', async () => {
    const { client } = await setup(() => ({
      body: {
        data: [
          { index: 0, embedding: Buffer.from(new Float32Array([1, 2]).buffer).toString('base64') },
        ],
      },
    }));
    expect(Array.from((await client.embed(['x']))[0]!)).toEqual([1, 2]);
  });

  it.each([
    ['a wrong count', { data: [{ index: 0, embedding: [1] }] }, /1 embeddings for 2 inputs/],
    ['no data', { object: 'list' }, /no `data` list/],
    [
      'a bad index',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 5, embedding: [1] },
        ],
      },
      /index 5/,
    ],
    [
      'mixed dimensions',
      { data: [{ embedding: [1] }, { embedding: [1, 2] }] },
      /dimension 2, not 1/,
    ],
    ['non-numbers', { data: [{ embedding: ['a'] }, { embedding: [1] }] }, /not a list of numbers/],
  ])('rejects %s with ERR_UPSTREAM naming the provider', async (_, body, pattern) => {
    const { client } = await setup(() => ({ body }));
    const error = await failure(client.embed(['a', 'b']));
    expect(error.code).toBe('ERR_UPSTREAM');
    expect(error.httpStatus).toBe(502);
    expect(error.message).toMatch(pattern);
    expect(error.message).toContain('OpenAI-compatible embeddings API');
  });

  it('checks the requested dimension', async () => {
    const { client } = await setup(embeddingsReply, { dimensions: 8 });
    expect((await failure(client.embed(['a']))).message).toMatch(/dimension 26, not 8/);
  });

  it('retries a 429 honouring Retry-After, then succeeds', async () => {
    const { api, client } = await setup((request, n) =>
      n === 1
        ? {
            status: 429,
            headers: { 'retry-after': '0' },
            body: { error: { message: 'slow down' } },
          }
        : embeddingsReply(request),
    );
    expect(await client.embed(['a'])).toHaveLength(1);
    expect(api.calls).toHaveLength(2);
  });

  it('times out with ERR_UPSTREAM_TIMEOUT (504)', async () => {
    const { client } = await setup(() => ({ delayMs: 500, body: {} }), {
      timeoutMs: 50,
      retries: 0,
    });
    const error = await failure(client.embed(['a']));
    expect(error.code).toBe('ERR_UPSTREAM_TIMEOUT');
    expect(error.httpStatus).toBe(504);
    expect(error.message).toMatch(/did not answer within 0.05 s/);
  });

  it('never puts the key in an error, even when the API echoes it', async () => {
    const { client } = await setup(
      () => ({
        status: 401,
        body: {
          error: { message: 'Incorrect API key provided: sk-secret-key-123456 (sk-secr****3456)' },
        },
      }),
      { provider: 'Test provider', service: 'emb' },
    );
    const error = await failure(client.embed(['a']));
    expect(error.message).toMatch(
      /^service "emb": Test provider at http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings answered HTTP 401/,
    );
    // Without the fake API's address: its random port may contain the key's digits (34561).
    const text = JSON.stringify({ m: error.message, d: error.details });
    expect(text.replace(/127\.0\.0\.1:\d+/g, 'HOST')).not.toMatch(/secret|3456/);
  });
});
