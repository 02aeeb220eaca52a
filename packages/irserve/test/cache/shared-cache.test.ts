import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { RedisServer, redisAvailable } from '../helpers/redis.js';

const search = (app: App, query: string, service = 'const') =>
  app.http.inject({ method: 'POST', url: '/search', payload: { service, query, limit: 3 } });

describe.runIf(redisAvailable())('cache_kv_url: a Redis cache shared by instances', () => {
  const redis = new RedisServer();
  const secured = new RedisServer({ password: 'pa55' });
  const apps: App[] = [];

  beforeAll(async () => {
    await Promise.all([redis.start(), secured.start()]);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await Promise.all([redis.stop(), secured.stop()]);
  });

  async function appWith(service: Record<string, unknown>): Promise<App> {
    const app = await testApp({
      services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0.001, ...service }],
    });
    apps.push(app);
    return app;
  }

  async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function healthy(app: App): Promise<boolean> {
    return (await app.http.inject({ method: 'GET', url: '/health' })).json().status === 'ok';
  }

  it('a miss on instance A is a hit on instance B', async () => {
    const a = await appWith({ cache_kv_url: redis.url });
    const b = await appWith({ cache_kv_url: redis.url });
    await waitFor(() => healthy(a));
    await waitFor(() => healthy(b));
    const first = (await search(a, 'shared query')).json();
    expect(first.cached).toBe(false);
    // The write is fire-and-forget: wait until A itself reads the entry back from the store.
    let stored: Record<string, unknown> = {};
    await waitFor(async () => {
      stored = (await search(a, 'shared query')).json();
      return stored.cached === true;
    });
    // B never computed this query: its answer is A's entry, timestamp included.
    expect((await search(b, 'shared query')).json()).toEqual(stored);
  });

  it('shares the pipeline cache through pipeline_cache_kv_url', async () => {
    const config = {
      services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0.001, cache: -1 }],
      pipeline_cache: 100,
      pipeline_cache_redis_url: redis.url,
    };
    const [a, b] = [await testApp(config), await testApp(config)];
    apps.push(a, b);
    const run = (app: App) =>
      app.http.inject({
        method: 'POST',
        url: '/pipeline',
        payload: { pipeline: '{const, const}RRF%5', query: 'pipelined' },
      });
    // Both replicas' store connections must be up: a lookup on one still connecting is a miss.
    await waitFor(() => healthy(a));
    await waitFor(() => healthy(b));
    expect((await run(a)).json().cached).toBe(false);
    let stored: Record<string, unknown> = {};
    await waitFor(async () => {
      stored = (await run(a)).json();
      return stored.cached === true;
    });
    expect((await run(b)).json()).toEqual(stored);
  });

  it("accepts RoutIR's cache_redis_url alias and expires entries after cache_ttl", async () => {
    const app = await appWith({ cache_redis_url: redis.url, cache_ttl: 0.3 });
    await waitFor(() => healthy(app));
    await search(app, 'ttl query');
    await waitFor(async () => (await search(app, 'ttl query')).json().cached === true);
    await new Promise((r) => setTimeout(r, 400));
    expect((await search(app, 'ttl query')).json().cached).toBe(false);
  });

  it('authenticates with cache_kv_kwargs.password', async () => {
    const app = await appWith({ cache_kv_url: secured.url, cache_kv_kwargs: { password: 'pa55' } });
    await waitFor(() => healthy(app));
    await search(app, 'auth query');
    await waitFor(async () => (await search(app, 'auth query')).json().cached === true);
  });

  it('a wrong password never fails a request: it answers uncached and reports degraded', async () => {
    const app = await appWith({
      cache_kv_url: secured.url,
      cache_kv_kwargs: { password: 'wrong' },
    });
    for (let i = 0; i < 3; i++) expect((await search(app, 'q')).statusCode).toBe(200);
    await waitFor(
      async () =>
        (await app.http.inject({ method: 'GET', url: '/health' })).json().status === 'degraded',
    );
    const health = (await app.http.inject({ method: 'GET', url: '/health' })).json();
    expect(JSON.stringify(health)).not.toMatch(/wrong/);
  });

  it('rejects unknown cache_kv_kwargs and non-redis URLs at start-up', async () => {
    await expect(
      appWith({ cache_kv_url: redis.url, cache_kv_kwargs: { pasword: 'x' } }),
    ).rejects.toThrow(/services\[0\]\.cache_kv_kwargs/);
    await expect(appWith({ cache_kv_url: 'http://127.0.0.1:1' })).rejects.toThrow(
      /not a redis:\/\//,
    );
  });

  it('survives the store going down mid-traffic (zero failed requests) and resumes caching when it returns', async () => {
    const volatile = new RedisServer();
    await volatile.start();
    try {
      const app = await appWith({ cache_kv_url: volatile.url });
      await waitFor(() => healthy(app));
      let failures = 0;
      let stop = false;
      const traffic = (async () => {
        let i = 0;
        while (!stop) {
          const response = await search(app, `load ${i++ % 20}`);
          if (response.statusCode !== 200) failures++;
        }
      })();
      await new Promise((r) => setTimeout(r, 200));
      await volatile.stop();
      await new Promise((r) => setTimeout(r, 500));
      expect((await app.http.inject({ method: 'GET', url: '/health' })).json().status).toBe(
        'degraded',
      );
      await volatile.start();
      await waitFor(() => healthy(app), 10_000);
      stop = true;
      await traffic;
      expect(failures).toBe(0);
      await search(app, 'after restart');
      await waitFor(async () => (await search(app, 'after restart')).json().cached === true);
    } finally {
      await volatile.stop();
    }
  });

  it('starts and serves when the store is down at start-up', async () => {
    const absent = new RedisServer();
    await absent.start();
    await absent.stop();
    const app = await appWith({ cache_kv_url: absent.url });
    expect((await search(app, 'no store')).statusCode).toBe(200);
    expect((await search(app, 'no store')).json().cached).toBe(false);
  });
});
