/**
 * examples/integrations/pointwise-reranker: the Ollama reranker plugin, loaded from its config
 * as a user would, against a local server speaking Ollama's /api/generate wire format. Every
 * upstream failure must be a clear 502 or 504 naming the service, never a 200 or a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExample, service, type ExampleApp } from './example-app.js';
import { closedPort, startFakeOllama, type FakeOllama } from './fake-ollama.js';

const QUERY = 'heat conduction in composite slabs';
const EXAMPLE = 'integrations/pointwise-reranker';

/** The example's `rerank` service once per fake model, named `rerank-<model>`. */
const MODELS = ['judge', 'plain', 'missing', 'slow', 'garbage', 'maybe', 'noresponse'];

describe('examples/integrations/pointwise-reranker', () => {
  let ollama: FakeOllama;
  let app: ExampleApp;

  beforeAll(async () => {
    ollama = await startFakeOllama();
    const refused = await closedPort();
    app = await openExample(EXAMPLE, (config) => {
      const rerank = service(config, 'rerank');
      rerank.config.url = ollama.url;
      rerank.config.model = 'judge';
      rerank.config.concurrency = 3;
      for (const model of MODELS)
        config.services.push({
          ...rerank,
          name: `rerank-${model}`,
          config: { ...rerank.config, model, timeout: 0.3 },
        });
      // The hybrid of the README: Orama's example engine loaded next to the reranker.
      config.file_imports.push('../orama/orama-search.ts');
      config.services.push({
        name: 'orama',
        engine: 'OramaSearch',
        config: { collection: 'cranfield' },
      });
      config.services.push({
        ...rerank,
        name: 'rerank-unreachable',
        config: { ...rerank.config, url: `http://127.0.0.1:${refused}` },
      });
    });
  });
  afterAll(async () => {
    await app?.close();
    await ollama?.close();
  });

  const score = (name: string, passages: string[]) =>
    app.post('/score', { service: name, query: QUERY, passages });

  it('scores each passage with P(yes) from the log-probabilities, in passage order', async () => {
    const { status, body } = await score('rerank', [
      'rivers and mountains',
      'heat conduction in composite slabs of two layers',
    ]);
    expect(status).toBe(200);
    const [unrelated, relevant] = body.scores as number[];
    expect(relevant).toBeCloseTo(0.95, 5);
    expect(unrelated).toBeCloseTo(0.05, 5);
  });

  it('falls back to the yes/no answer when Ollama returns no log-probabilities', async () => {
    const { status, body } = await score('rerank-plain', ['rivers', 'composite slabs conduction']);
    expect(status).toBe(200);
    expect(body.scores).toEqual([0, 1]);
  });

  it('reranks BM25 results in a pipeline: bm25%10 >> rerank', async () => {
    const { status, body } = await app.post('/pipeline', {
      pipeline: 'bm25%10 >> rerank',
      collection: 'cranfield',
      query: QUERY,
    });
    expect(status).toBe(200);
    const scores = body.scores as Record<string, number>;
    expect(Object.keys(scores)).toHaveLength(10);
    expect(Object.values(scores).every((s) => s >= 0 && s <= 1)).toBe(true);
    // Document 5 (judged relevant) names all four query words in its title.
    expect(scores['5']).toBeGreaterThan(0.5);
  });

  it('reranks a hybrid: {bm25, orama}RRF%100 >> rerank%10', async () => {
    const { status, body } = await app.post('/pipeline', {
      pipeline: '{bm25, orama}RRF%100 >> rerank%10',
      collection: 'cranfield',
      query: QUERY,
    });
    expect(status).toBe(200);
    const scores = Object.values(body.scores as Record<string, number>);
    expect(scores).toHaveLength(10);
    // The fake judge scores the share of query words in a passage: the reranked top 10 of the
    // 100 fused documents all hold at least half of them, the best all four.
    expect(Math.min(...scores)).toBeGreaterThanOrEqual(0.5);
    expect(Math.max(...scores)).toBeCloseTo(0.95, 5);
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    const before = ollama.stats.requests;
    ollama.stats.maxInFlight = 0;
    const passages = Array.from({ length: 12 }, (_, i) => `composite slab ${i}`);
    expect((await score('rerank', passages)).status).toBe(200);
    expect(ollama.stats.requests - before).toBe(12);
    expect(ollama.stats.maxInFlight).toBeGreaterThan(1);
    expect(ollama.stats.maxInFlight).toBeLessThanOrEqual(3);
  });

  const failures: [string, number, string, RegExp][] = [
    [
      'an HTTP error with its message',
      502,
      'missing',
      /answered HTTP 404: model "missing" not found/,
    ],
    ['a body that is not JSON', 502, 'garbage', /not JSON: <html>/],
    ['an answer that is neither yes nor no', 502, 'maybe', /answered "Perhaps", expected "yes"/],
    ['JSON without a response', 502, 'noresponse', /without a "response" string/],
    ['a timeout', 504, 'slow', /did not answer in 0\.3 s/],
    ['an unreachable server', 502, 'unreachable', /cannot be reached \(ECONNREFUSED\)/],
  ];
  it.each(failures)('turns %s into a %i naming the service', async (_l, status, model, message) => {
    const { status: got, body } = await score(`rerank-${model}`, ['a composite slab']);
    expect(got).toBe(status);
    expect(body.code).toBe(status === 504 ? 'ERR_UPSTREAM_TIMEOUT' : 'ERR_UPSTREAM');
    expect(body.error).toMatch(new RegExp(`^rerank-${model}: `));
    expect(body.error).toMatch(message);
  });

  it('fails a pipeline stage cleanly and keeps serving', async () => {
    const failed = await app.post('/pipeline', {
      pipeline: 'bm25%5 >> rerank-missing',
      collection: 'cranfield',
      query: QUERY,
    });
    expect(failed.status).toBe(502);
    expect((await app.app.http.inject({ method: 'GET', url: '/ping' })).statusCode).toBe(200);
    expect((await score('rerank', ['composite slabs'])).status).toBe(200);
  });

  it('rejects a bad config, naming the fields', async () => {
    const open = openExample(EXAMPLE, (config) => {
      const rerank = service(config, 'rerank').config;
      delete rerank.model;
      Object.assign(rerank, { concurrency: 0, timout: 5 });
    });
    await expect(open).rejects.toThrow(/config\.timout: unknown key/);
    await expect(open).rejects.toThrow(/config\.model: required/);
    await expect(open).rejects.toThrow(/config\.concurrency: must be an integer from 1 to 64/);
  });
});
