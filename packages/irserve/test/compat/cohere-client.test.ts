import { CohereClient, CohereClientV2, CohereError } from 'cohere-ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { compatApp } from './compat-app.js';

const KEY = 'compat-key-0123456789';
let app: App;
let base: string;
let v1: CohereClient;
let v2: CohereClientV2;

beforeAll(async () => {
  ({ app, base } = await compatApp(KEY));
  v1 = new CohereClient({ token: KEY, environment: base });
  v2 = new CohereClientV2({ token: KEY, environment: base });
});
afterAll(async () => {
  await app.close();
});

const documents = ['the cat sat', 'a dog and a cat sat together', 'stock markets'];

describe('Cohere rerank with the official cohere-ai client', () => {
  it('v1: ranks documents best first, with top_n and return_documents', async () => {
    const answer = await v1.rerank({
      model: 'rerank-v3.5',
      query: 'cat sat',
      documents,
      topN: 2,
      returnDocuments: true,
    });
    expect(answer.results.map((r) => [r.index, r.relevanceScore])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(answer.results[0]!.document).toEqual({ text: 'the cat sat' });
  });

  it('v1: accepts documents as {text} objects', async () => {
    const answer = await v1.rerank({
      model: 'rerank-v3.5',
      query: 'markets',
      documents: [{ text: 'cats' }, { text: 'stock markets' }],
    });
    expect(answer.results[0]!.index).toBe(1);
  });

  it('v2: ranks with a score service, or with a whole pipeline alias as the reranker', async () => {
    const direct = await v2.rerank({ model: 'rerank-v3.5', query: 'cat sat', documents });
    expect(direct.results.map((r) => r.index)).toEqual([0, 1, 2]);
    // cascade = overlap%3 >> dense%2: every document scored by overlap, the top 2 by dense.
    const cascade = await v2.rerank({ model: 'cascade', query: 'cat sat', documents });
    expect(cascade.results).toHaveLength(2);
    expect(cascade.results.map((r) => r.index).sort()).toEqual([0, 1]);
  });

  it('unknown model is a 404, bad input a 400, a wrong key a 401 (CohereError with the status)', async () => {
    await expect(v2.rerank({ model: 'nope', query: 'q', documents })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(
      v2.rerank({ model: 'rerank-v3.5', query: 'q', documents, topN: -1 }),
    ).rejects.toBeInstanceOf(CohereError);
    const wrong = new CohereClientV2({ token: 'wrong', environment: base });
    await expect(
      wrong.rerank({ model: 'rerank-v3.5', query: 'q', documents }),
    ).rejects.toMatchObject({ statusCode: 401 });
  });

  it('a bytes scorer cannot rerank text documents: a 400 naming the model', async () => {
    await expect(v2.rerank({ model: 'bytesize', query: 'q', documents })).rejects.toMatchObject({
      statusCode: 400,
    });
  });
});

describe('Jina /v1/rerank (raw HTTP: Jina has no npm client)', () => {
  it('answers with model, usage and results', async () => {
    const response = await fetch(`${base}/v1/rerank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({
        model: 'rerank-v3.5',
        query: 'cat',
        documents: [{ text: 'cat' }, 'dog'],
        top_n: 1,
        return_documents: true,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'rerank-v3.5',
      usage: { total_tokens: 3 },
      results: [{ index: 0, relevance_score: 1, document: { text: 'cat' } }],
    });
  });

  it('errors carry Jina`s detail and Cohere`s message', async () => {
    const response = await fetch(`${base}/v1/rerank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: 'rerank-v3.5', query: 'cat' }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { message: string; detail: string };
    expect(body.detail).toMatch(/^documents:/);
    expect(body.message).toBe(body.detail);
  });
});
