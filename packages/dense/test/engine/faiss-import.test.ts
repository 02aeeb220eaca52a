/**
 * RoutIR users serve the indexes they already have: a directory with `index.faiss` (written by
 * Python faiss) and `index.ids`. The answers Python faiss gave for three queries are recorded in
 * the fixtures; the Dense engine must give the same documents in the same order.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  post,
  startEmbeddingsStandIn,
  startTestApp,
  tempDir,
  type EmbeddingsStandIn,
} from 'irserve/testing';
import { Dense } from '../../src/index.js';

const fixtures = resolve(import.meta.dirname, '../fixtures/faiss');

interface Expected {
  dim: number;
  queries: number[];
  results: Record<string, { labels: number[][]; distances: number[][] }>;
}

describe('Dense over a FAISS index written by Python faiss', () => {
  let api: EmbeddingsStandIn;
  let expected: Expected;

  beforeAll(async () => {
    expected = JSON.parse(await readFile(join(fixtures, 'faiss-expected.json'), 'utf8'));
    api = await startEmbeddingsStandIn(expected.dim);
    for (let q = 0; q < expected.queries.length / expected.dim; q++) {
      api.overrides.set(`q${q}`, expected.queries.slice(q * expected.dim, (q + 1) * expected.dim));
    }
  });
  afterAll(async () => {
    await api?.close();
  });

  it.each([
    ['flat-ip', (distance: number) => distance],
    ['flat-l2', (distance: number) => -distance],
    ['ivf-flat', undefined],
  ])('%s: same documents, same order as faiss', async (name, toScore) => {
    const dir = await tempDir('irserve-faiss-');
    await dir.write('index/index.faiss', await readFile(join(fixtures, `${name}.faiss`)));
    await dir.write('index/index.ids', await readFile(join(fixtures, 'index.ids')));
    const service = {
      name: 'dense',
      engine: 'Dense',
      processor: 'single',
      config: {
        index_path: dir.join('index'),
        embedding_base_url: api.url,
        embedding_model_name: 'replay',
        k_scale: 1,
      },
    };
    const { app, close } = await startTestApp(
      { services: [service] },
      { engines: [Dense], dir: dir.path },
    );
    try {
      const { labels, distances } = expected.results[name]!;
      for (const [q, row] of labels.entries()) {
        const reply = await post(app, '/search', {
          service: 'dense',
          query: `q${q}`,
          limit: row.length,
        });
        expect(reply.status).toBe(200);
        const scores = reply.body.scores as Record<string, number>;
        expect(Object.keys(scores)).toEqual(row.map((label) => `doc${label}`));
        if (toScore) {
          Object.values(scores).forEach((score, i) =>
            expect(score).toBeCloseTo(toScore(distances[q]![i]!), 3),
          );
        }
      }
    } finally {
      await close();
      await dir.remove();
    }
  });
});
