/**
 * Faults of a search cluster, against the local stand-in: a cluster that answers too slowly
 * fails its requests in bounded time (other services unaffected), one that is down at start
 * comes back without a restart, and credentials never reach a log line or an error body.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { postOverSocket } from '../../../irserve/test/helpers/post-over-socket.js';
import { backendApp, health, post } from '../helpers/app.js';
import { startFakeCluster, type FakeCluster } from '../helpers/fake-cluster.js';
import { freePort, waitFor } from '../helpers/ports.js';

async function withIndex(cluster: FakeCluster, authorization?: string): Promise<void> {
  const headers = {
    'content-type': 'application/json',
    ...(authorization ? { authorization } : {}),
  };
  await fetch(`${cluster.url}/docs`, { method: 'PUT', headers, body: '{}' });
  await fetch(`${cluster.url}/docs/_doc/d1`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ text: 'jet thrust' }),
  });
}

describe('search cluster faults', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a slow cluster fails with ERR_UPSTREAM_TIMEOUT in bounded time; other services answer', async () => {
    const slow = await startFakeCluster('opensearch');
    const fast = await startFakeCluster('elasticsearch');
    cleanups.push(
      () => slow.close(),
      () => fast.close(),
    );
    await withIndex(slow);
    await withIndex(fast);
    const { app } = await backendApp({
      services: [
        {
          name: 'slow',
          engine: 'OpenSearch',
          config: { node: slow.url, index: 'docs', timeout: 0.3, retries: 0 },
        },
        { name: 'fast', engine: 'Elasticsearch', config: { node: fast.url, index: 'docs' } },
      ],
    });
    cleanups.push(() => app.close());
    slow.delayMs = 3000;
    const started = Date.now();
    const [a, b] = await Promise.all([
      post(app, '/search', { service: 'slow', query: 'thrust' }),
      post(app, '/search', { service: 'fast', query: 'thrust' }),
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(a.status).toBe(504);
    expect(a.body.code).toBe('ERR_UPSTREAM_TIMEOUT');
    expect(b.status).toBe(200);
    expect(Object.keys(b.body.scores)).toEqual(['d1']);
    slow.delayMs = 0;
  });

  it.each(['opensearch', 'elasticsearch'] as const)(
    'cuts the %s request of a search nobody waits for (the cluster cancels it)',
    async (flavor) => {
      const cluster = await startFakeCluster(flavor);
      cleanups.push(() => cluster.close());
      await withIndex(cluster);
      const engine = flavor === 'opensearch' ? 'OpenSearch' : 'Elasticsearch';
      const { app } = await backendApp({
        services: [
          {
            name: 'patient',
            engine,
            max_wait_time: 0,
            config: { node: cluster.url, index: 'docs', timeout: 30, retries: 0 },
          },
        ],
      });
      cleanups.push(() => app.close());
      cluster.delayMs = 3000;
      const search = { service: 'patient', query: 'thrust', timeout: 0.3 };
      expect((await post(app, '/search', search)).status).toBe(504);
      await waitFor(() => cluster.cut === 1, 1_000);
      cluster.delayMs = 0;
      // A cut of irserve's own making leaves the service listed: the next search answers.
      const next = await post(app, '/search', { service: 'patient', query: 'thrust' });
      expect(next.status).toBe(200);
    },
  );

  it.each([
    ['opensearch', '_id'],
    ['elasticsearch', '_id'],
    ['opensearch', 'key'],
  ] as const)(
    'cuts the %s document lookup (by %s) of a client that leaves /content',
    async (flavor, idField) => {
      const cluster = await startFakeCluster(flavor);
      cleanups.push(() => cluster.close());
      await withIndex(cluster);
      const { app } = await backendApp({
        services: [
          {
            name: 'patient',
            engine: flavor === 'opensearch' ? 'OpenSearch' : 'Elasticsearch',
            config: {
              node: cluster.url,
              index: 'docs',
              timeout: 30,
              retries: 0,
              collection: 'cluster-docs',
              ...(idField === '_id' ? {} : { id_field: idField }),
            },
          },
        ],
      });
      cleanups.push(() => app.close());
      cluster.delayMs = 3000;
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const request = postOverSocket(url, '/content', { collection: 'cluster-docs', id: 'd1' });
      await waitFor(() => cluster.waiting === 1, 2_000);
      request.destroy();
      await waitFor(() => cluster.cut === 1, 1_000);
      // The cut leaves the service up: the next lookup reaches the cluster and gets its answer
      // (by `key`, a field the indexed document lacks: not found).
      cluster.delayMs = 0;
      const next = await post(app, '/content', { collection: 'cluster-docs', id: 'd1' });
      if (idField === '_id') expect(next.body).toMatchObject({ id: 'd1', text: 'jet thrust' });
      else expect(next.body.code).toBe('ERR_DOC_NOT_FOUND');
    },
  );

  it('a cluster down at start is listed unavailable, then serves without a restart', async () => {
    const port = await freePort();
    const { app } = await backendApp({
      services: [
        {
          name: 'late',
          engine: 'Elasticsearch',
          config: { node: `http://127.0.0.1:${port}`, index: 'docs', reconnect_max_wait: 1 },
        },
      ],
    });
    cleanups.push(() => app.close());
    const down = await post(app, '/search', { service: 'late', query: 'thrust' });
    expect(down.status).toBe(502);
    expect(down.body.error).toMatch(/unavailable/);
    expect((await health(app)).body).toMatchObject({ status: 'degraded', ready: true });
    const cluster = await startFakeCluster('elasticsearch', { port });
    cleanups.push(() => cluster.close());
    await withIndex(cluster);
    await waitFor(async () => (await health(app)).body.engines[0].state === 'up', 15_000);
    expect(
      (await post(app, '/search', { service: 'late', query: 'thrust' })).body.scores,
    ).toHaveProperty('d1');
  }, 30_000);

  it('never logs or returns the password, right or wrong', async () => {
    const cluster = await startFakeCluster('opensearch', {
      auth: { username: 'admin', password: 'right-Pw-123' },
    });
    cleanups.push(() => cluster.close());
    await withIndex(cluster, `Basic ${Buffer.from('admin:right-Pw-123').toString('base64')}`);
    process.env.IRSERVE_TEST_OS_RIGHT = 'right-Pw-123';
    process.env.IRSERVE_TEST_OS_WRONG = 'wrong-Pw-456';
    const config = (env: string) => ({
      node: cluster.url,
      index: 'docs',
      username: 'admin',
      password_env: env,
      reconnect_max_wait: 60,
    });
    const { app, logs } = await backendApp({
      services: [
        { name: 'right', engine: 'OpenSearch', config: config('IRSERVE_TEST_OS_RIGHT') },
        { name: 'wrong', engine: 'OpenSearch', config: config('IRSERVE_TEST_OS_WRONG') },
      ],
    });
    cleanups.push(() => app.close());
    expect(
      (await post(app, '/search', { service: 'right', query: 'thrust' })).body.scores,
    ).toHaveProperty('d1');
    const wrong = await post(app, '/search', { service: 'wrong', query: 'thrust' });
    expect(wrong.status).toBe(502);
    expect(wrong.body.error).toMatch(/HTTP 401/);
    const everything =
      logs.join('') + JSON.stringify(wrong.body) + JSON.stringify((await health(app)).body);
    expect(everything).not.toContain('right-Pw-123');
    expect(everything).not.toContain('wrong-Pw-456');
  });

  it('rejects bad configs with ERR_CONFIG naming the field', async () => {
    const start = (config: Record<string, unknown>) =>
      backendApp({ services: [{ name: 'x', engine: 'OpenSearch', config }] }, false);
    await expect(start({ node: 'ftp://x', index: 'docs' })).rejects.toThrow(/config\.node/);
    await expect(start({ node: 'http://x', index: 'a b' })).rejects.toThrow(/config\.index/);
    await expect(start({ node: 'http://x', index: 'docs', mode: 'knn' })).rejects.toThrow(
      /config\.embedding/,
    );
    await expect(start({ node: 'http://x', index: 'docs', fields: ['a b'] })).rejects.toThrow(
      /config\.fields/,
    );
  });
});
