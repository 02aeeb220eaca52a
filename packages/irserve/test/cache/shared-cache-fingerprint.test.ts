/**
 * Issue 39, item 1: a shared cache (`cache_kv_url`) keys a service's entries by the fingerprint
 * of what determines its answers (engine, engine config, what the engine opened), so a restart
 * with other BM25 settings or another corpus never answers `cached: true` with the old
 * configuration's scores, while replicas of one configuration share. Against a real Redis.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { SearchRequest } from '../../src/engines/contract.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { RedisServer, redisAvailable } from '../helpers/redis.js';

const DOCS = [
  { id: '358', text: 'wing flutter at transonic speed' },
  { id: '12', text: 'flutter of a wing, flutter of a tail, flutter again' },
  { id: '7', text: 'boundary layer of a wing' },
];

interface Answer {
  cached: boolean;
  scores: Record<string, number>;
}

/** A search engine whose answers follow a model file it "opened" (its identity). */
class ModelSearch {
  static identity = 'model-v1';
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(() => ({ d1: ModelSearch.identity === 'model-v1' ? 1 : 2 }));
  }
  cacheIdentity() {
    return ModelSearch.identity;
  }
}

describe.runIf(redisAvailable())('shared cache fingerprints (issue 39, item 1)', () => {
  const redis = new RedisServer();
  const apps: App[] = [];
  let dir: string;

  beforeAll(async () => {
    await redis.start();
    dir = await mkdtemp(join(tmpdir(), 'irserve-fingerprint-'));
    await writeFile(join(dir, 'a.jsonl'), DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const other = DOCS.map((d) => ({ ...d, text: `${d.text} ${d.id === '7' ? 'flutter' : ''}` }));
    await writeFile(join(dir, 'b.jsonl'), other.map((d) => JSON.stringify(d)).join('\n') + '\n');
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await redis.stop();
  });

  /**
   * A started app whose store connection is up: its canary (a service of one configuration
   * everywhere) reads the entry the first app wrote, so a miss after this is the fingerprint's.
   */
  async function start(
    config: { services: Record<string, unknown>[] },
    cacheDir: string,
    engines = TEST_ENGINES,
  ): Promise<App> {
    const canary = { name: 'canary', engine: 'ConstSearch', cache_kv_url: redis.url };
    const app = await testApp(
      { ...config, services: [...config.services, canary] },
      { cacheDir: join(dir, cacheDir), configDir: dir, engines },
    );
    apps.push(app);
    const payload = { service: 'canary', query: 'canary', limit: 1 };
    await until(
      async () =>
        (await app.http.inject({ method: 'POST', url: '/search', payload })).json().cached,
    );
    return app;
  }

  function bm25(config: Record<string, unknown>, corpus = 'a.jsonl') {
    return {
      collections: [{ name: 'c', doc_path: join(dir, corpus), content_field: 'text' }],
      services: [
        {
          name: 'bm25',
          engine: 'BM25',
          config: { collection: 'c', ...config },
          cache_kv_url: redis.url,
          max_wait_time: 0.001,
        },
      ],
    };
  }

  const search = async (app: App, query = 'flutter wing') =>
    (
      await app.http.inject({
        method: 'POST',
        url: '/search',
        payload: { service: 'bm25', query, limit: 3 },
      })
    ).json<Answer>();

  /** Searches until the entry written by the first search is read back from the store. */
  async function storedAnswer(app: App) {
    expect((await search(app)).cached).toBe(false);
    let answer = await search(app);
    await until(async () => (answer = await search(app)).cached);
    return answer;
  }

  it('replicas of one configuration share; other k1/b or another corpus never read them', async () => {
    const first = await start(bm25({ k1: 1.2, b: 0.75 }), 'one');
    const stored = await storedAnswer(first);
    // A replica: same engine, config and index (built by itself, in its own folder).
    const replica = await start(bm25({ b: 0.75, k1: 1.2 }), 'two');
    expect(await search(replica)).toEqual(stored);
    // Other BM25 settings: computed afresh, with their own scores.
    const retuned = await start(bm25({ k1: 0.5, b: 0.3 }), 'three');
    const fresh = await search(retuned);
    expect(fresh.cached).toBe(false);
    expect(fresh.scores['12']).not.toBeCloseTo(stored.scores['12']!, 5);
    // Another corpus under the same config: the index checksum differs.
    const reindexed = await start(bm25({ k1: 1.2, b: 0.75 }, 'b.jsonl'), 'four');
    expect((await search(reindexed)).cached).toBe(false);
  });

  it('keys carry the fingerprint after the service name', async () => {
    const app = await start(bm25({}), 'five');
    await storedAnswer(app);
    const { Redis } = await import('ioredis');
    const client = new Redis(redis.port, '127.0.0.1');
    try {
      const keys = await client.keys('servicecache:bm25*');
      expect(keys.some((key) => /^servicecache:bm25@[0-9a-f]{16}:/.test(key))).toBe(true);
      expect(keys.filter((key) => key.startsWith('servicecache:bm25:'))).toEqual([
        'servicecache:bm25:search:__index',
      ]);
    } finally {
      client.disconnect();
    }
  });

  it("follows an engine's cacheIdentity (a replaced model), and so does the pipeline cache", async () => {
    const config = {
      services: [
        { name: 'm', engine: 'ModelSearch', cache_kv_url: redis.url, max_wait_time: 0.001 },
      ],
      pipeline_cache: 100,
      pipeline_cache_kv_url: redis.url,
    };
    const run = async (app: App, url: string, payload: Record<string, unknown>) =>
      (await app.http.inject({ method: 'POST', url, payload })).json<Answer>();
    const search = { service: 'm', query: 'q', limit: 3 };
    const pipeline = { pipeline: 'm%3', query: 'q' };
    ModelSearch.identity = 'model-v1';
    const before = await start(config, 'six', [...TEST_ENGINES, ModelSearch]);
    await run(before, '/search', search);
    await run(before, '/pipeline', pipeline);
    await until(async () => (await run(before, '/search', search)).cached);
    await until(async () => (await run(before, '/pipeline', pipeline)).cached);
    ModelSearch.identity = 'model-v2';
    try {
      const after = await start(config, 'six', [...TEST_ENGINES, ModelSearch]);
      expect(await run(after, '/search', search)).toMatchObject({
        cached: false,
        scores: { d1: 2 },
      });
      expect(await run(after, '/pipeline', pipeline)).toMatchObject({
        cached: false,
        scores: { d1: 2 },
      });
    } finally {
      ModelSearch.identity = 'model-v1';
    }
  });
});

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
