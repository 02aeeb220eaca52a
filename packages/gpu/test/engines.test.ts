/**
 * The GGUF engines on llama.cpp's CPU backend through HTTP: /search and /score of
 * GgufEmbedding, /score of GgufReranker, a pipeline with both, /health, and the model shared by
 * two services.
 */
import { getLlama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { GgufEmbedding, GgufReranker } from '../src/index.js';
import {
  DOCS,
  TINY_EMBED,
  TINY_RERANK,
  embedDirect,
  gpuWorld,
  post,
  startApp,
  type GpuWorld,
} from './helpers.js';

/** The score of a pair by node-llama-cpp alone, no engine code. */
async function rankDirect(query: string, passages: string[]): Promise<number[]> {
  const llama = await getLlama({ build: 'never', gpu: false, maxThreads: 1 });
  const model = await llama.loadModel({ modelPath: TINY_RERANK, gpuLayers: 0 });
  const context = await model.createRankingContext({ contextSize: 520, threads: 1 });
  try {
    return await context.rankAll(query, passages);
  } finally {
    await context.dispose();
    await model.dispose();
  }
}

describe('GgufEmbedding and GgufReranker on the CPU', () => {
  let world: GpuWorld;
  let app: App;

  beforeAll(async () => {
    world = await gpuWorld();
    // One thread per context: spinning llama.cpp threads on a busy two-core runner crawl.
    const cpu = { device: 'cpu', max_length: 512, llama_threads: 1 };
    app = await startApp(
      {
        collections: [world.collection],
        services: [
          { name: 'bm25', engine: 'BM25', config: { collection: 'aero' } },
          {
            name: 'embed',
            engine: 'GgufEmbedding',
            max_wait_time: 0.01,
            config: { index_path: world.indexDir, model_path: TINY_EMBED, ...cpu, batch_size: 2 },
          },
          {
            name: 'embed-again',
            engine: 'GgufEmbedding',
            config: { index_path: world.indexDir, model_name_or_path: TINY_EMBED, ...cpu },
          },
          {
            name: 'rerank',
            engine: 'GgufReranker',
            max_wait_time: 0.01,
            config: { model_path: TINY_RERANK, ...cpu },
          },
        ],
      },
      world.dir,
      [GgufEmbedding, GgufReranker],
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('/search finds a document from its own text first', async () => {
    for (const doc of DOCS) {
      const { status, body } = await post(app, '/search', {
        service: 'embed',
        query: doc.text,
        limit: 3,
      });
      expect(status).toBe(200);
      expect(Object.keys(body.scores)[0]).toBe(doc.id);
      expect(Object.values(body.scores)[0]).toBeCloseTo(1, 4);
    }
  });

  it('/score gives the inner product of the normalised embeddings', async () => {
    const passages = DOCS.slice(0, 3).map((d) => d.text);
    const { status, body } = await post(app, '/score', {
      service: 'embed-again',
      query: 'jet engines',
      passages,
    });
    expect(status).toBe(200);
    const [query, ...vectors] = await embedDirect(['jet engines', ...passages]);
    vectors.forEach((v, i) => {
      const dot = v.reduce((sum, x, j) => sum + x * query![j]!, 0);
      expect(body.scores[i]).toBeCloseTo(dot, 4);
    });
  });

  it('/score of the reranker equals node-llama-cpp ranking the same pairs', async () => {
    const passages = DOCS.map((d) => d.text);
    const { status, body } = await post(app, '/score', {
      service: 'rerank',
      query: 'thrust of jet engines',
      passages,
    });
    expect(status).toBe(200);
    const direct = await rankDirect('thrust of jet engines', passages);
    direct.forEach((score, i) => expect(body.scores[i]).toBeCloseTo(score, 5));
    for (const score of body.scores) expect(score).toBeGreaterThan(0);
  });

  it('runs a pipeline: fusion of BM25 and the embeddings, reranked', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: '{bm25, embed}RRF%6 >> rerank',
      collection: 'aero',
      query: 'boundary layer flow',
    });
    expect(status).toBe(200);
    const ranked = Object.entries(body.scores as Record<string, number>);
    expect(ranked.length).toBeGreaterThan(1);
    const scores = ranked.map(([, score]) => score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('/health names the backend and device of each GGUF service', async () => {
    const reply = await app.http.inject({ method: 'GET', url: '/health' });
    const text = reply.body;
    expect(text).toContain('llama.cpp');
    expect(text).toContain('"device":"cpu"');
  });

  it('cuts long passages and queries to max_length instead of failing', async () => {
    const long = 'thrust '.repeat(5000);
    const embed = await post(app, '/score', { service: 'embed', query: long, passages: [long] });
    expect(embed.status).toBe(200);
    const rerank = await post(app, '/score', { service: 'rerank', query: long, passages: [long] });
    expect(rerank.status).toBe(200);
    expect(Number.isFinite(rerank.body.scores[0])).toBe(true);
  });

  it('refuses non-text passages with a 400 naming the field', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'rerank',
      query: 'q',
      passages: [{ image: 'x' }],
    });
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toMatch(/passages/);
  });
});
