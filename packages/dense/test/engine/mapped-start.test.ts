import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bagOfWords, captureLogs, post, startTestApp } from 'irserve/testing';
import { Dense } from '../../src/index.js';
import { saveIndex, trainAndAdd } from '../../src/vector-index/index.js';
import { DIM, DOCS, denseWorld, type DenseWorld } from './world.js';

/** Starts the world's config over the HNSW index, its log lines kept in `logs`. */
async function startLogged(world: DenseWorld, dense: Record<string, unknown>) {
  const { logger, logs } = captureLogs('info');
  const { app } = await startTestApp(world.config(dense), {
    engines: [Dense],
    dir: world.dir,
    logger,
  });
  return { app, logs };
}

describe('Dense over a memory-mapped HNSW graph', () => {
  let world: DenseWorld;
  let hnsw: string;

  beforeAll(async () => {
    world = await denseWorld();
    hnsw = join(world.dir, 'hnsw-index');
    const features = new Float32Array(DOCS.length * DIM);
    DOCS.forEach((doc, i) => features.set(bagOfWords(`${doc.title} ${doc.text}`, DIM), i * DIM));
    const ids = DOCS.map((doc) => doc.id);
    await saveIndex(trainAndAdd('HNSW8', features, DIM, 'ip'), ids, hnsw);
    // A graph changed under 2 s before a start is hashed but not stamped (verification-stamp.ts).
    await sleep(2100);
  }, 30_000);
  afterAll(async () => world?.api.close());

  it('says in /health and the log how the graph was verified: hashed, then by its stamp', async () => {
    const dense = { index_path: hnsw, memory_budget: 1 };
    const verifiedOf = async (app: Awaited<ReturnType<typeof startLogged>>['app']) => {
      const { engines } = (await app.http.inject({ url: '/health' })).json();
      const service = (engines as { service: string; verified?: string }[]).find(
        (engine) => engine.service === 'dense',
      );
      return service?.verified;
    };
    const first = await startLogged(world, dense);
    const expected = await post(first.app, '/search', { service: 'dense', query: 'jet', limit: 3 });
    const hashed = await verifiedOf(first.app);
    await first.app.close();
    expect(hashed).toMatch(/^hashed at start \(\d+\.\d s\)$/);

    const second = await startLogged(world, dense);
    try {
      const verified = await verifiedOf(second.app);
      expect(verified).toMatch(/^stamp of \d{4}-\d\d-\d\dT[\d:.]+Z$/);
      const opened = second.logs.find(/^dense index opened$/);
      expect(opened).toMatchObject({ storage: 'mapped', verified });
      const actual = await post(second.app, '/search', {
        service: 'dense',
        query: 'jet',
        limit: 3,
      });
      expect(Object.entries(actual.body.scores)).toEqual(Object.entries(expected.body.scores));
    } finally {
      await second.app.close();
    }
  });
});
