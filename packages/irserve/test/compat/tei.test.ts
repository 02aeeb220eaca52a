import { describe, expect, it } from 'vitest';
import { compatAppOfFile } from './compat-app.js';
import { hashVector } from './engines.js';

const server = compatAppOfFile();

async function post(path: string, body: unknown) {
  const response = await fetch(server.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('TEI routes', () => {
  it('/embed: unit vectors, prompt_name "query" embeds queries', async () => {
    const { status, body } = await post('/embed', { inputs: ['a cat', 'a dog'] });
    expect(status).toBe(200);
    const vectors = body as number[][];
    expect(vectors).toHaveLength(2);
    expect(vectors[0]!.map((x) => x.toFixed(5))).toEqual(
      Array.from(hashVector('passage: a cat', 64)).map((x) => x.toFixed(5)),
    );
    const query = (await post('/embed', { inputs: 'a cat', prompt_name: 'query' }))
      .body as number[][];
    expect(query[0]!.map((x) => x.toFixed(5))).toEqual(
      Array.from(hashVector('query: a cat', 64)).map((x) => x.toFixed(5)),
    );
  });

  it('/rerank: [{index, score, text?}] best first', async () => {
    const { status, body } = await post('/rerank', {
      query: 'cat sat',
      texts: ['dog', 'the cat sat'],
      return_text: true,
    });
    expect(status).toBe(200);
    expect(body).toEqual([
      { index: 1, score: 2, text: 'the cat sat' },
      { index: 0, score: 0, text: 'dog' },
    ]);
  });

  it('/embed_sparse: non-zero {index, value} pairs from a sparse engine', async () => {
    const { status, body } = await post('/embed_sparse', { inputs: ['cat cat dog'] });
    expect(status).toBe(200);
    const [pairs] = body as { index: number; value: number }[][];
    expect(pairs!.map((p) => p.value).sort()).toEqual([1, 2]);
  });

  it('validation errors are 422 {error, error_type}', async () => {
    const { status, body } = await post('/embed', { inputs: [] });
    expect(status).toBe(422);
    expect(body).toMatchObject({
      error_type: 'Validation',
      error: expect.stringMatching(/^inputs/),
    });
    expect((await post('/rerank', { query: 'q' })).status).toBe(422);
  });

  it("answers a body it cannot read in TEI's shape and irserve's at once (issue 39, item 16)", async () => {
    // Whether such a body was TEI's or irserve's is unknown: it got irserve's {error, code} only.
    for (const path of ['/embed', '/embed_sparse']) {
      for (const [type, body, status, code] of [
        ['application/json', '{"inputs": ["a cat"', 400, 'ERR_BAD_REQUEST'],
        ['text/plain', '{"inputs": ["a cat"]}', 415, 'ERR_UNSUPPORTED_MEDIA_TYPE'],
      ] as const) {
        const response = await fetch(server.base + path, {
          method: 'POST',
          headers: { 'content-type': type },
          body,
        });
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual({
          error: expect.any(String),
          error_type: 'Validation',
          code,
        });
      }
    }
    const rerank = await fetch(server.base + '/rerank', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(rerank.status).toBe(422);
    expect(await rerank.json()).toEqual({ error: expect.any(String), error_type: 'Validation' });
  });
});

describe('irserve /embed and /embed_sparse (bodies with a service)', () => {
  it('answers the envelope with vectors, kind and dimensions; repeats are cached', async () => {
    const first = await post('/embed', { service: 'hash', input: ['x', 'y'], kind: 'query' });
    expect(first.body).toMatchObject({
      cached: false,
      processed: true,
      service: 'hash',
      kind: 'query',
      dimensions: 16,
    });
    const again = await post('/embed', { service: 'hash', input: ['x', 'y'], kind: 'query' });
    expect(again.body).toMatchObject({ cached: true });
    const base64 = await post('/embed', { service: 'hash', input: 'x', encoding_format: 'base64' });
    expect((base64.body as { embeddings: string[] }).embeddings[0]).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('errors in irserve`s shape: unknown service, a service without the capability, a broken engine', async () => {
    expect(await post('/embed', { service: 'nope', input: 'x' })).toMatchObject({
      status: 400,
      body: { code: 'ERR_SERVICE_NOT_FOUND' },
    });
    expect(await post('/embed', { service: 'overlap', input: 'x' })).toMatchObject({
      status: 400,
      body: { code: 'ERR_SERVICE_NOT_FOUND' },
    });
    expect(await post('/embed', { service: 'broken', input: 'x' })).toMatchObject({
      status: 500,
      body: { code: 'ERR_ENGINE', error: expect.stringContaining('Float32Array') },
    });
    const sparse = await post('/embed_sparse', { service: 'sparse', input: 'a b' });
    expect(sparse.body).toMatchObject({
      embeddings: [{ indices: expect.any(Array), values: [1, 1] }],
    });
  });

  it('/avail lists the embed and embed_sparse services', async () => {
    const avail = (await (await fetch(`${server.base}/avail`)).json()) as Record<string, unknown>;
    expect(avail.embed).toEqual(['hash', 'dense', 'broken']);
    expect(avail.embed_sparse).toEqual(['sparse']);
  });
});
