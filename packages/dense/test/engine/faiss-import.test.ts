/**
 * RoutIR users serve the indexes they already have: a directory with `index.faiss` (written by
 * Python faiss) and `index.ids`. The answers Python faiss gave for three queries are recorded in
 * the fixtures; the Dense engine must give the same documents in the same order.
 */
import { copyFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from 'irserve';
import { Dense } from '../../src/index.js';
import { startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js';

const fixtures = resolve(import.meta.dirname, '../fixtures/faiss');

interface Expected {
  dim: number;
  queries: number[];
  results: Record<string, { labels: number[][]; distances: number[][] }>;
}

describe('Dense over a FAISS index written by Python faiss', () => {
  let api: EmbeddingsServer;
  let expected: Expected;

  beforeAll(async () => {
    expected = JSON.parse(await readFile(join(fixtures, 'faiss-expected.json'), 'utf8'));
    api = await startEmbeddingsServer(expected.dim);
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
    const dir = await mkdtemp(join(tmpdir(), 'irserve-faiss-'));
    const indexDir = join(dir, 'index');
    await mkdir(indexDir);
    await copyFile(join(fixtures, `${name}.faiss`), join(indexDir, 'index.faiss'));
    await copyFile(join(fixtures, 'index.ids'), join(indexDir, 'index.ids'));
    const app = await createApp(
      {
        services: [
          {
            name: 'dense',
            engine: 'Dense',
            processor: 'single',
            config: {
              index_path: indexDir,
              embedding_base_url: api.url,
              embedding_model_name: 'replay',
              k_scale: 1,
            },
          },
        ],
      },
      { logger: pino({ level: 'silent' }), engines: [Dense], extras: false, cacheDir: dir },
    );
    try {
      await app.start();
      const { labels, distances } = expected.results[name]!;
      for (const [q, row] of labels.entries()) {
        const reply = await app.http.inject({
          method: 'POST',
          url: '/search',
          payload: { service: 'dense', query: `q${q}`, limit: row.length },
        });
        expect(reply.statusCode).toBe(200);
        const scores = reply.json().scores as Record<string, number>;
        expect(Object.keys(scores)).toEqual(row.map((label) => `doc${label}`));
        if (toScore) {
          Object.values(scores).forEach((score, i) =>
            expect(score).toBeCloseTo(toScore(distances[q]![i]!), 3),
          );
        }
      }
    } finally {
      await app.close();
    }
  });
});
