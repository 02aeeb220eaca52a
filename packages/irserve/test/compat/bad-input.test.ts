import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { compatApp } from './compat-app.js';

const KEY = 'compat-key-0123456789';
let app: App;
let base: string;
beforeAll(async () => {
  ({ app, base } = await compatApp(KEY));
});
afterAll(async () => {
  await app.close();
});

type Shape = 'openai' | 'cohere' | 'rerank-v1' | 'tei' | 'irserve';
/** Whether `body` is an error in that provider's shape. */
function hasShape(shape: Shape, body: Record<string, unknown>): boolean {
  switch (shape) {
    case 'openai': {
      const error = body.error as Record<string, unknown> | undefined;
      return typeof error?.message === 'string' && typeof error.type === 'string';
    }
    case 'cohere':
      return typeof body.message === 'string';
    case 'rerank-v1':
      return typeof body.message === 'string' && typeof body.detail === 'string';
    case 'tei':
      return typeof body.error === 'string' && typeof body.error_type === 'string';
    case 'irserve':
      return typeof body.error === 'string' && typeof body.code === 'string';
  }
}

const LONG = 'x'.repeat(1_000_001);
const MANY = Array.from({ length: 2049 }, () => 'a');
/** [route, error shape, malformed bodies]: each must be a 4xx in that shape. */
const CASES: [string, Shape, unknown[]][] = [
  [
    '/v1/embeddings',
    'openai',
    [
      {},
      { model: 'hash' },
      { input: 'a' },
      { model: 5, input: 'a' },
      { model: 'hash', input: '' },
      { model: 'hash', input: [] },
      { model: 'hash', input: [1, 2, 3] },
      { model: 'hash', input: [[1, 2]] },
      { model: 'hash', input: { text: 'a' } },
      { model: 'hash', input: MANY },
      { model: 'hash', input: LONG },
      { model: 'hash', input: 'a', encoding_format: 'int8' },
      { model: 'hash', input: 'a', dimensions: 0 },
      { model: 'hash', input: 'a', dimensions: 1e9 },
      { model: 'hash', input: 'a', input_type: 'rm -rf' },
      { model: '__proto__', input: 'a' },
      { model: 'constructor', input: 'a' },
      { model: 'overlap', input: 'a' },
      [],
      'a string',
      null,
    ],
  ],
  [
    '/v2/rerank',
    'cohere',
    [
      {},
      { model: 'rerank-v3.5', query: 'q' },
      { model: 'rerank-v3.5', documents: ['a'] },
      { model: 'rerank-v3.5', query: '', documents: ['a'] },
      { model: 'rerank-v3.5', query: 'q', documents: 'a' },
      { model: 'rerank-v3.5', query: 'q', documents: [5] },
      { model: 'rerank-v3.5', query: 'q', documents: [{ title: 'no text' }] },
      { model: 'rerank-v3.5', query: 'q', documents: ['a'], top_n: 0 },
      { model: 'rerank-v3.5', query: 'q', documents: ['a'], top_n: 1.5 },
      { model: 'rerank-v3.5', query: 'q', documents: ['a'], return_documents: 'yes' },
      { model: 'rerank-v3.5', query: 'q', documents: Array.from({ length: 10_001 }, () => 'a') },
      { model: 'hash', query: 'q', documents: ['a'] },
      { model: '__proto__', query: 'q', documents: ['a'] },
    ],
  ],
  [
    '/v1/rerank',
    'rerank-v1',
    [
      {},
      { model: 'rerank-v3.5', query: 5, documents: ['a'] },
      { model: 'toString', query: 'q', documents: ['a'] },
    ],
  ],
  [
    '/embed',
    'tei',
    [
      { inputs: null },
      { inputs: [] },
      { inputs: [5] },
      { inputs: MANY },
      { inputs: 'a', normalize: 'no' },
      { inputs: 'a', dimensions: -1 },
    ],
  ],
  [
    '/rerank',
    'tei',
    [
      {},
      { query: 'q' },
      { query: 'q', texts: 'a' },
      { query: 5, texts: ['a'] },
      { query: 'q', texts: ['a'], return_text: 1 },
    ],
  ],
  ['/embed_sparse', 'tei', [{ inputs: [] }, { inputs: 7 }]],
  [
    '/embed',
    'irserve',
    [
      {},
      { service: 'hash' },
      { service: 'hash', input: [] },
      { service: 'hash', input: 'a', kind: 'doc' },
      { service: 'hash', input: MANY },
      { service: '__proto__', input: 'a' },
    ],
  ],
  ['/embed_sparse', 'irserve', [{ service: 'sparse' }, { service: 'hash', input: 'a' }]],
];

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...headers },
    body,
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: response.status, json };
}

describe('malformed input on every compat route: a 4xx in the provider`s shape, never a 5xx', () => {
  for (const [route, shape, bodies] of CASES) {
    it.each(bodies.map((body, i) => [i, body] as const))(
      `${route} (${shape}) body %i`,
      async (_i, body) => {
        const { status, json } = await post(route, JSON.stringify(body));
        expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
        expect(hasShape(shape, json)).toBe(true);
      },
    );
  }

  const ROUTES: [string, Shape][] = [
    ['/v1/embeddings', 'openai'],
    ['/v1/rerank', 'rerank-v1'],
    ['/v2/rerank', 'cohere'],
    ['/rerank', 'tei'],
  ];
  it.each(ROUTES)(
    '%s: invalid JSON, a wrong content type and an oversized body',
    async (route, shape) => {
      const broken = await post(route, '{"model": ');
      expect(broken.status).toBeLessThan(500);
      expect(broken.status).toBeGreaterThanOrEqual(400);
      expect(hasShape(shape, broken.json)).toBe(true);
      const text = await post(route, 'hello', { 'content-type': 'text/plain' });
      expect(text.status).toBeGreaterThanOrEqual(400);
      expect(text.status).toBeLessThan(500);
      expect(hasShape(shape, text.json)).toBe(true);
      const huge = await post(
        route,
        JSON.stringify({ model: 'x', input: 'y'.repeat(17 * 1024 * 1024) }),
      );
      expect(huge.status).toBe(413);
      expect(hasShape(shape, huge.json)).toBe(true);
    },
  );

  it.each([...ROUTES, ['/embed', 'irserve'] as [string, Shape]])(
    '%s without a token: 401 in its shape',
    async (route, shape) => {
      const response = await fetch(base + route, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'hash',
          input: 'a',
          query: 'q',
          documents: ['a'],
          texts: ['a'],
        }),
      });
      expect(response.status).toBe(401);
      expect(hasShape(shape, (await response.json()) as Record<string, unknown>)).toBe(true);
    },
  );

  it('GET /v1/models needs the token too', async () => {
    expect((await fetch(`${base}/v1/models`)).status).toBe(401);
    const unknown = await fetch(`${base}/v1/models/nope`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(unknown.status).toBe(404);
  });
});
