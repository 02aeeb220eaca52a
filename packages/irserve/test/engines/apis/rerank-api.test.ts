import { describe, expect, it } from 'vitest';
import { apiHarness, post } from './app.js';
import type { Handler } from './fake-api.js';
import { cohereReply, overlap, teiReply, vllmScoreReply, voyageReply } from './replies.js';

const harness = apiHarness();

const QUERY = 'neural ranking models';
const PASSAGES = [
  'cooking pasta at home',
  'neural ranking models for search',
  'ranking of football teams',
  'models of neural networks',
  '',
];
const EXPECTED = PASSAGES.map((p) => overlap(QUERY, p));

function rerankService(handler: Handler, config: Record<string, unknown>, path = '') {
  return harness.start(handler, (url) => [
    { name: 'rr', engine: 'RerankAPI', config: { base_url: `${url}${path}`, ...config } },
  ]);
}

const score = (passages = PASSAGES) =>
  post(harness.app, '/score', { service: 'rr', query: QUERY, passages });

describe('RerankAPI wire formats', () => {
  it('cohere: POST /v1/rerank, results out of order come back in passage order', async () => {
    const { api } = await rerankService(cohereReply, {
      model: 'rerank-v3.5',
      api_key: 'co-key-12345678',
    });
    const { status, body } = await score();
    expect(status).toBe(200);
    expect(body.scores).toEqual(EXPECTED);
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.path).toBe('/v1/rerank');
    expect(api.calls[0]!.headers.authorization).toBe('Bearer co-key-12345678');
    expect(api.calls[0]!.body).toEqual({
      model: 'rerank-v3.5',
      query: QUERY,
      documents: PASSAGES,
      top_n: PASSAGES.length,
      return_documents: false,
    });
  });

  it('jina with a base URL ending in /v1 posts to /v1/rerank, not /v1/v1/rerank', async () => {
    const { api } = await rerankService(
      cohereReply,
      { model: 'jina-reranker-v2', api_format: 'jina' },
      '/v1',
    );
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls[0]!.path).toBe('/v1/rerank');
  });

  it('voyage: answers under `data`, asks with top_k and truncation', async () => {
    const { api } = await rerankService(voyageReply, { model: 'rerank-2', api_format: 'voyage' });
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls[0]!.body).toMatchObject({ top_k: PASSAGES.length, truncation: true });
  });

  it('tei: POST /rerank {query, texts, truncate, raw_scores} -> [{index, score}], no model needed', async () => {
    const { api } = await rerankService(teiReply, {
      api_format: 'tei',
      truncate: false,
      raw_scores: true,
    });
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls[0]!.path).toBe('/rerank');
    expect(api.calls[0]!.body).toEqual({
      query: QUERY,
      texts: PASSAGES,
      truncate: false,
      raw_scores: true,
    });
  });

  it('vllm: /v1/rerank in the cohere shape', async () => {
    const { api } = await rerankService(cohereReply, { model: 'bge-reranker', api_format: 'vllm' });
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls[0]!.path).toBe('/v1/rerank');
  });

  it('vllm-score: /score {model, text_1, text_2} -> data[{index, score}]', async () => {
    const { api } = await rerankService(vllmScoreReply, {
      model: 'bge-reranker',
      api_format: 'vllm-score',
    });
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls[0]!.path).toBe('/score');
    expect(api.calls[0]!.body).toEqual({ model: 'bge-reranker', text_1: QUERY, text_2: PASSAGES });
  });

  it('a config `path` overrides the format default', async () => {
    const { api } = await rerankService(cohereReply, { model: 'm', path: '/v2/rerank' });
    await score();
    expect(api.calls[0]!.path).toBe('/v2/rerank');
  });
});

describe('RerankAPI batching', () => {
  it('splits long lists by max_documents_per_call and merges the scores in order', async () => {
    const { api } = await rerankService(cohereReply, { model: 'm', max_documents_per_call: 2 });
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls.map((c) => c.body.documents)).toEqual([
      PASSAGES.slice(0, 2),
      PASSAGES.slice(2, 4),
      PASSAGES.slice(4),
    ]);
  });

  it('tei defaults to 32 texts per call (TEI refuses more)', async () => {
    const { api } = await rerankService(teiReply, { api_format: 'tei' });
    const many = Array.from({ length: 70 }, (_, i) => `neural doc ${i}`);
    const { body } = await score(many);
    expect(body.scores).toHaveLength(70);
    expect(api.calls.map((c) => c.body.texts.length).sort()).toEqual([32, 32, 6]);
  });

  it('makes no call for an empty passage list', async () => {
    const { api } = await rerankService(cohereReply, { model: 'm' });
    expect((await score([])).body.scores).toEqual([]);
    expect(api.calls).toHaveLength(0);
  });
});

describe('RerankAPI upstream failures', () => {
  it.each([
    [
      'a wrong count',
      { results: [{ index: 0, relevance_score: 1 }] },
      /answered with 1 scores for 5 documents/,
    ],
    [
      'a repeated index',
      { results: [0, 0, 1, 2, 3].map((index) => ({ index, relevance_score: 1 })) },
      /two results with index 0/,
    ],
    [
      'an index out of range',
      { results: [{ index: 9, relevance_score: 1 }] },
      /index 9 for 5 documents/,
    ],
    ['no list', { message: 'ok' }, /no `results` or `data` list/],
    [
      'a non-numeric score',
      { results: [{ index: 0, relevance_score: 'high' }] },
      /without a numeric score/,
    ],
    ['invalid JSON', '{"results": [', /invalid JSON/],
  ])('%s is a 502 naming the provider and the service', async (_, body, pattern) => {
    const { api } = await rerankService(() => ({ body }), { model: 'm', retries: 2 });
    const { status, body: error } = await score();
    expect(status).toBe(502);
    expect(error.code).toBe('ERR_UPSTREAM');
    expect(error.error).toMatch(
      /^service "rr": Cohere-compatible rerank API at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank /,
    );
    expect(error.error).toMatch(pattern);
    expect(api.calls).toHaveLength(1); // a malformed answer is not retried
  });

  it('a slow answer is a 504 after the timeout', async () => {
    await rerankService(() => ({ delayMs: 1000, body: {} }), {
      model: 'm',
      timeout: 0.1,
      retries: 0,
    });
    const { status, body } = await score();
    expect(status).toBe(504);
    expect(body.code).toBe('ERR_UPSTREAM_TIMEOUT');
    expect(body.error).toMatch(/did not answer within 0.1 s/);
  });

  it('5xx then success is retried and answers', async () => {
    const { api } = await rerankService(
      (request, n) =>
        n < 3
          ? { status: n === 1 ? 503 : 500, body: { message: 'overloaded' } }
          : cohereReply(request),
      { model: 'm', retries: 3 },
    );
    expect((await score()).body.scores).toEqual(EXPECTED);
    expect(api.calls).toHaveLength(3);
  });

  it('a 4xx is not retried and is a 502 carrying the provider message', async () => {
    const { api } = await rerankService(
      () => ({ status: 400, body: { message: 'invalid model' } }),
      { model: 'm' },
    );
    const { status, body } = await score();
    expect(status).toBe(502);
    expect(body).toMatchObject({
      code: 'ERR_UPSTREAM',
      upstream_status: 400,
      provider: 'Cohere-compatible rerank API',
    });
    expect(body.error).toMatch(/answered HTTP 400: invalid model$/);
    expect(api.calls).toHaveLength(1);
  });

  it('retries exhausted: a 502 saying how many attempts were made', async () => {
    const { api } = await rerankService(() => ({ status: 502, body: 'bad gateway' }), {
      model: 'm',
      retries: 2,
    });
    const { status, body } = await score();
    expect(status).toBe(502);
    expect(body.error).toMatch(/answered HTTP 502: bad gateway \(after 3 attempts\)/);
    expect(api.calls).toHaveLength(3);
  });

  it('an unreachable API is a 502', async () => {
    const { api } = await rerankService(cohereReply, { model: 'm', retries: 1 });
    await api.close();
    const { status, body } = await score();
    expect(status).toBe(502);
    expect(body.error).toMatch(/connection failed/);
  });
});
