/**
 * The key-value cache and the pipeline cache on a three-master Redis Cluster and behind
 * Sentinel (real redis-server processes). Entries spread over the masters; a master that dies
 * costs misses, never a wrong or failed answer; caching resumes after the failover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { redisAvailable } from '../helpers/redis.js';
import { RedisClusterNodes, RedisSentinelSet } from '../helpers/redis-topologies.js';

interface SearchAnswer {
  scores: Record<string, number>;
  cached: boolean;
}

const search = async (app: App, query: string): Promise<SearchAnswer> => {
  const response = await app.http.inject({
    method: 'POST',
    url: '/search',
    payload: { service: 'const', query, limit: 3 },
  });
  // A cache store that fails must cost a miss, never the answer.
  expect(response.statusCode).toBe(200);
  return response.json<SearchAnswer>();
};

const EXPECTED = { doc0: 3, doc1: 2, doc2: 1 };

async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

function appOn(url: string): Promise<App> {
  return testApp({
    services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0.001, cache_kv_url: url }],
    pipeline_cache: 1000,
    pipeline_cache_kv_url: url,
  });
}

describe.runIf(redisAvailable())('cache on a Redis Cluster (3 masters, 3 replicas)', () => {
  const cluster = new RedisClusterNodes();
  const apps: App[] = [];

  beforeAll(async () => {
    await cluster.start(3, 1);
    apps.push(await appOn(cluster.url), await appOn(cluster.url));
    // Writes made before a replica's cluster connection is up are dropped (a miss at worst):
    // the tests below start once every store of both replicas is up.
    for (const app of apps)
      await waitFor(async () => {
        const health = (await app.http.inject({ method: 'GET', url: '/health' })).json();
        return health.cache_stores.every((store: { state: string }) => store.state === 'up');
      });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    cluster.stop();
  });

  it('a miss on one replica of irserve is a hit on another; entries spread over the masters', async () => {
    const [a, b] = apps as [App, App];
    for (let i = 0; i < 30; i++) expect((await search(a, `q${i}`)).scores).toEqual(EXPECTED);
    await waitFor(async () => (await search(b, 'q29')).cached);
    expect((await search(b, 'q0')).cached).toBe(true);
    const holding = cluster.masters().filter((port) => cluster.keys(port) > 0);
    expect(holding.length).toBeGreaterThanOrEqual(2);
    const pipeline = { pipeline: 'const%2', query: 'pq', collection: 'none' };
    await a.http.inject({ method: 'POST', url: '/pipeline', payload: pipeline });
    await waitFor(
      async () =>
        (await b.http.inject({ method: 'POST', url: '/pipeline', payload: pipeline })).json()
          .cached === true,
    );
    const health = (await a.http.inject({ method: 'GET', url: '/health' })).json();
    expect(health.cache_stores[0].url).toMatch(/^redis\+cluster:/);
  }, 30_000);

  // The helper's nodes have `cluster-replica-validity-factor 0` and sync their replicas before
  // the tests start (a replica that never synced may not take over), and a 1 s node timeout.
  it('a master failover loses no correctness: misses at worst, then caching resumes', async () => {
    const [a] = apps as [App];
    const victim = cluster.masters()[0]!;
    cluster.kill(victim);
    // During the failover every answer is still right (some uncached).
    const started = Date.now();
    let i = 0;
    while (Date.now() - started < 3000)
      expect((await search(a, `during-${i++}`)).scores).toEqual(EXPECTED);
    await cluster.healed();
    // The victim's replica was promoted: three masters again, the victim not among them.
    expect(cluster.masters()).toHaveLength(3);
    expect(cluster.masters()).not.toContain(victim);
    for (let j = 0; j < 30; j++) expect((await search(a, `after-${j}`)).scores).toEqual(EXPECTED);
    // Every slot is served again: entries written now are read back.
    await waitFor(async () => {
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, j) => search(a, `after-${j}`)),
      );
      return results.every((r) => r.cached);
    });
  }, 60_000);
});

describe.runIf(redisAvailable())('cache behind Redis Sentinel', () => {
  const set = new RedisSentinelSet();
  let app: App;

  beforeAll(async () => {
    await set.start();
    app = await appOn(set.url);
  }, 30_000);
  afterAll(async () => {
    await app?.close();
    set.stop();
  });

  it('caches through the master the sentinel names, and follows a failover', async () => {
    await search(app, 'before');
    await waitFor(async () => (await search(app, 'before')).cached);
    set.killMaster();
    for (let i = 0; i < 10; i++) expect((await search(app, `down-${i}`)).scores).toEqual(EXPECTED);
    await set.failedOver();
    await waitFor(async () => {
      await search(app, 'after');
      return (await search(app, 'after')).cached;
    }, 30_000);
    expect((await search(app, 'after')).scores).toEqual(EXPECTED);
  }, 60_000);
});

describe('cache_kv_url forms', () => {
  it.each([
    ['redis+cluster://', /cache_kv_url/],
    ['redis+cluster://127.0.0.1:7000/0', /cache_kv_url/],
    ['redis+sentinel://127.0.0.1:26379', /cache_kv_url/],
    ['redis+cluster://h:99999', /cache_kv_url/],
    ['memcached://h:1', /cache_kv_url/],
  ])('%s is refused with ERR_CONFIG', async (url, message) => {
    await expect(
      testApp({ services: [{ name: 'const', engine: 'ConstSearch', cache_kv_url: url }] }),
    ).rejects.toThrow(message);
  });

  it('never shows the password of a cluster URL', async () => {
    const app = await testApp({
      services: [
        {
          name: 'const',
          engine: 'ConstSearch',
          cache_kv_url: 'redis+cluster://:s3cret-pw@127.0.0.1:1,127.0.0.1:2',
        },
      ],
    });
    const health = JSON.stringify(
      (await app.http.inject({ method: 'GET', url: '/health' })).json(),
    );
    await app.close();
    expect(health).not.toContain('s3cret-pw');
    expect(health).toContain('***');
  });
});
