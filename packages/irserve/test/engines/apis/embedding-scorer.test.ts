import { describe, expect, it } from 'vitest';
import { apiHarness, post } from './app.js';
import { embeddingsReply, letterVector } from './fake-api.js';

const harness = apiHarness();

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return dot / (norm(a) * norm(b));
}

async function embedder(
  config: Record<string, unknown> = {},
  service: Record<string, unknown> = {},
) {
  const { api } = await harness.start(embeddingsReply, (url) => {
    const base = { base_url: `${url}/v1`, model: 'text-embedding-3-small' };
    return [
      { name: 'emb', engine: 'OpenAIEmbeddingScorer', config: { ...base, ...config }, ...service },
    ];
  });
  return api;
}

const score = (query: string, passages: string[]) =>
  post(harness.app, '/score', { service: 'emb', query, passages });

describe('OpenAIEmbeddingScorer', () => {
  it('scores cosine similarity, embedding query and distinct passages in one call', async () => {
    const api = await embedder({ query_prefix: 'query: ', passage_prefix: 'passage: ' });
    const passages = ['a cat', 'zebra', 'a cat', ''];
    const { status, body } = await score('cats', passages);
    expect(status).toBe(200);
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.body.input).toEqual(['query: cats', 'passage: a cat', 'passage: zebra']);
    const q = letterVector('query: cats');
    const expected = [
      ...passages.slice(0, 3).map((p) => cosine(q, letterVector(`passage: ${p}`))),
      0,
    ];
    body.scores.forEach((s: number, i: number) => expect(s).toBeCloseTo(expected[i]!, 5));
  });

  it('several concurrent /score requests make ONE upstream call (batch processor)', async () => {
    const api = await embedder({}, { batch_size: 32, max_wait_time: 0.05, cache: -1 });
    const queries = ['alpha', 'beta', 'gamma', 'delta', 'alpha'];
    const answers = await Promise.all(
      queries.map((q) => score(q, ['shared passage', `only ${q}`])),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(api.calls).toHaveLength(1);
    // Distinct texts only: 4 queries, 1 shared passage, 4 own passages.
    expect(api.calls[0]!.body.input).toHaveLength(9);
    expect(answers[0]!.body.scores).toEqual(answers[4]!.body.scores);
  });

  it('splits a batch larger than max_inputs_per_call', async () => {
    const api = await embedder({ max_inputs_per_call: 2 });
    const { body } = await score('q', ['a', 'b', 'c']);
    expect(body.scores).toHaveLength(3);
    expect(api.calls.map((c) => c.body.input.length).sort()).toEqual([2, 2]);
  });

  it('sends `dimensions` when configured', async () => {
    const api = await embedder({ dimensions: 26 });
    await score('q', ['a']);
    expect(api.calls[0]!.body.dimensions).toBe(26);
  });

  it('a wrong count from the API is a 502', async () => {
    const api = await embedder();
    api.handle(() => ({ body: { data: [{ index: 0, embedding: [1, 2] }] } }));
    const { status, body } = await score('q', ['a', 'b']);
    expect(status).toBe(502);
    expect(body.error).toMatch(
      /^service "emb": OpenAI-compatible embeddings API at .*\/v1\/embeddings answered with 1 embeddings for 3 inputs/,
    );
  });
});
