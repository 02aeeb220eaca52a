/**
 * The scale-out example (examples/scale-out), tried without containers: its seed on a real
 * PostgreSQL, a three-master Redis Cluster of `redis-server` processes, and three replicas of the
 * built `irserve` command (the container image's entry point) on the example's config, with only
 * the compose file's host names swapped for loopback addresses. The README's requests answer on
 * every replica, a query one replica answered is a cache hit on the others, and behind nginx on
 * the example's nginx.conf a replica told to stop drains and exits 0 without costing a request.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable } from '../../../irserve/test/helpers/redis.js';
import { RedisClusterNodes } from '../../../irserve/test/helpers/redis-topologies.js';
import { NginxServer, nginxAvailable } from '../helpers/nginx-server.js';
import { waitFor } from '../helpers/ports.js';
import { PostgresServer, postgresAvailable } from '../helpers/postgres-server.js';
import { builtCommandAvailable, Replica } from '../helpers/replica.js';

const EXAMPLE = resolve(import.meta.dirname, '../../../../examples/scale-out');
/** The compose file's names for the cluster's nodes and the database. */
const COMPOSE_REDIS = 'redis+cluster://redis-0:6379,redis-1:6379,redis-2:6379';
const COMPOSE_POSTGRES = 'postgres';
/** The compose file's `POSTGRES_PASSWORD` and the replicas' `PGPASSWORD`. */
const PASSWORD = 'change-me';

const available =
  postgresAvailable() && redisAvailable() && nginxAvailable() && builtCommandAvailable();

type Config = { services: { config?: Record<string, unknown> }[] };

/** The example's config with the compose file's addresses swapped for loopback ones. */
function onLoopback(text: string, redisUrl: string, postgresPort: number): string {
  expect(text).toContain(COMPOSE_REDIS);
  const config = JSON.parse(text.replaceAll(COMPOSE_REDIS, redisUrl)) as Config;
  const postgres = config.services.filter((s) => s.config?.host === COMPOSE_POSTGRES);
  expect(postgres).toHaveLength(1);
  for (const service of postgres)
    Object.assign(service.config!, { host: '127.0.0.1', port: postgresPort });
  return JSON.stringify(config);
}

/** A request to `base` (a replica or the balancer); a body that is not JSON comes back as text. */
async function call(base: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: { text } as Record<string, unknown> };
  }
}

/** The example's nginx.conf with the compose file's replica name swapped for loopback ones. */
function balancing(conf: string, port: number, replicas: Replica[]): string {
  const upstream = 'server irserve:8000 max_fails=1 fail_timeout=5s;';
  expect(conf).toContain(upstream);
  expect(conf).toContain('listen 8080;');
  const servers = replicas.map(
    (replica) => `server ${new URL(replica.url).host} max_fails=1 fail_timeout=5s;`,
  );
  return conf
    .replace(upstream, servers.join('\n  '))
    .replace('listen 8080;', `listen 127.0.0.1:${port};`);
}

describe.skipIf(!available)('the scale-out example, on loopback', () => {
  const postgres = new PostgresServer(PASSWORD);
  const redis = new RedisClusterNodes();
  const replicas: Replica[] = [];
  const balancer = new NginxServer();
  let dir = '';

  beforeAll(async () => {
    await Promise.all([postgres.start(), redis.start(3)]);
    postgres.psql('CREATE DATABASE search');
    postgres.psql(await readFile(join(EXAMPLE, 'seed/seed.sql'), 'utf8'), 'search');
    dir = await mkdtemp(join(tmpdir(), 'irserve-scale-out-'));
    await copyFile(join(EXAMPLE, 'config/docs.jsonl'), join(dir, 'docs.jsonl'));
    const config = await readFile(join(EXAMPLE, 'config/config.json'), 'utf8');
    await writeFile(join(dir, 'config.json'), onLoopback(config, redis.url, postgres.port));
    const env = { PGPASSWORD: PASSWORD, IRSERVE_DRAIN_DELAY: '1' };
    const started = [0, 1, 2].map(() => Replica.start(join(dir, 'config.json'), env));
    replicas.push(...(await Promise.all(started)));
    const site = await readFile(join(EXAMPLE, 'nginx.conf'), 'utf8');
    await balancer.start((port) => balancing(site, port, replicas));
  }, 90_000);

  afterAll(async () => {
    await balancer.destroy();
    await Promise.all(replicas.map((replica) => replica.stop('SIGKILL')));
    redis.stop();
    await postgres.destroy();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it("every replica is ready and answers the README's requests", async () => {
    for (const replica of replicas) {
      const health = await call(replica.url, '/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ ready: true, lifecycle: 'ready' });
      // A cluster created a moment before may still be settling its slots when a replica first
      // connects: the replica serves uncached (`degraded`) and reconnects by itself.
      await waitFor(async () => (await call(replica.url, '/health')).body.status === 'ok', 10_000);
      const search = await call(replica.url, '/search', {
        service: 'pg-fts',
        query: 'boundary layer',
      });
      expect(Object.keys(search.body.scores as object).sort()).toEqual(['d2', 'd5']);
      const pipeline = await call(replica.url, '/pipeline', {
        pipeline: '{pg-fts, bm25}RRF%100',
        query: 'boundary layer',
        collection: 'docs-pg',
      });
      expect(pipeline.status).toBe(200);
      expect(
        Object.keys(pipeline.body.scores as object)
          .slice(0, 2)
          .sort(),
      ).toEqual(['d2', 'd5']);
      const content = await call(replica.url, '/content', { collection: 'docs-pg', id: 'd3' });
      expect(content.body).toMatchObject({ id: 'd3', title: 'Shock waves' });
    }
  });

  it('a query one replica answered is a cache hit on the others (the Redis Cluster)', async () => {
    const query = { service: 'pg-fts', query: 'supersonic wedge' };
    const first = await call(replicas[0]!.url, '/search', query);
    expect(first.body.cached).not.toBe(true);
    for (const replica of replicas.slice(1)) {
      const again = await call(replica.url, '/search', query);
      expect(again.body).toMatchObject({ cached: true, scores: first.body.scores });
    }
  });

  it("behind nginx (the example's nginx.conf), a replica stopped with SIGTERM costs no request", async () => {
    const statuses: number[] = [];
    let stopping = false;
    const traffic = (async () => {
      for (let i = 0; !stopping; i++) {
        const query = { service: 'pg-fts', query: `flutter ${i % 7}` };
        statuses.push((await call(balancer.url, '/search', query)).status);
      }
    })();
    await waitFor(() => statuses.length >= 10);
    const leaving = replicas[2]!;
    const exited = leaving.stop('SIGTERM');
    await waitFor(async () => (await call(leaving.url, '/health')).status === 503, 5_000);
    expect((await call(leaving.url, '/health')).body).toMatchObject({ lifecycle: 'draining' });
    expect(await exited).toBe(0);
    const atExit = statuses.length;
    await waitFor(() => statuses.length >= atExit + 10);
    stopping = true;
    await traffic;
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });
});
