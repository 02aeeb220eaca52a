/**
 * The Postgres engine in full-text mode against a real PostgreSQL server (Debian `postgresql`):
 * rankings equal the server's own `ts_rank_cd`, subsets filter, score and the collection view
 * work, and faults (down at start, slow statements, wrong password) behave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { postOverSocket } from '../../../irserve/test/helpers/post-over-socket.js';
import { backendApp, health, post, unavailable } from '../helpers/app.js';
import { DOCS, literal } from '../helpers/corpus.js';
import { PostgresServer, postgresAvailable } from '../helpers/postgres-server.js';
import { freePort, waitFor } from '../helpers/ports.js';

const available = postgresAvailable();

describe.skipIf(!available)('Postgres engine, full-text, on PostgreSQL', () => {
  const server = new PostgresServer();
  const apps: App[] = [];
  let app: App;

  const config = (extra: Record<string, unknown> = {}) => ({
    connection_string: server.url,
    table: 'docs',
    title_column: 'title',
    subset_field: 'subset',
    collection: 'pgdocs',
    ...extra,
  });

  beforeAll(async () => {
    process.env.IRSERVE_TEST_PGPASSWORD = server.password;
    await server.start();
    server.psql(
      `CREATE TABLE docs (id text PRIMARY KEY, title text, text text, subset text);` +
        `INSERT INTO docs VALUES ${DOCS.map((d) => `(${literal(d.id)}, ${literal(d.title)}, ${literal(d.text)}, ${literal(d.subset)})`).join(',')};` +
        `CREATE VIEW slow_docs AS SELECT d.* FROM docs d CROSS JOIN LATERAL pg_sleep(3) s;`,
    );
    app = (
      await backendApp({
        services: [
          {
            name: 'pg',
            engine: 'Postgres',
            config: config({ password_env: 'IRSERVE_TEST_PGPASSWORD' }),
          },
          {
            name: 'slow',
            engine: 'Postgres',
            config: {
              connection_string: server.url,
              table: 'slow_docs',
              password_env: 'IRSERVE_TEST_PGPASSWORD',
              timeout: 0.3,
              retries: 0,
            },
          },
          {
            name: 'patient',
            engine: 'Postgres',
            max_wait_time: 0,
            config: {
              connection_string: server.url,
              table: 'slow_docs',
              password_env: 'IRSERVE_TEST_PGPASSWORD',
              timeout: 30,
              pool_size: 1,
              retries: 0,
              collection: 'slowpg',
            },
          },
        ],
      })
    ).app;
    apps.push(app);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await server.destroy();
  });

  it('ranks like the server’s own ts_rank_cd', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'pg',
      query: 'boundary layer',
      limit: 10,
    });
    expect(status).toBe(200);
    const direct = server.psql(
      `SELECT id || '=' || ts_rank_cd(to_tsvector('english', text), websearch_to_tsquery('english', 'boundary layer'))::text FROM docs WHERE to_tsvector('english', text) @@ websearch_to_tsquery('english', 'boundary layer') ORDER BY 1`,
    );
    const expected = Object.fromEntries(
      direct
        .trim()
        .split('\n')
        .map((line) => [line.split('=')[0], Number(line.split('=')[1])]),
    );
    expect(Object.keys(body.scores).sort()).toEqual(['d2', 'd5']);
    for (const [id, score] of Object.entries(expected))
      expect(body.scores[id]).toBeCloseTo(Number(score), 5);
  });

  it('cuts to limit and filters by subset', async () => {
    const one = await post(app, '/search', { service: 'pg', query: 'boundary layer', limit: 1 });
    expect(Object.keys(one.body.scores)).toHaveLength(1);
    const odd = await post(app, '/search', {
      service: 'pg',
      query: 'thrust',
      limit: 10,
      subset: 'odd',
    });
    expect(Object.keys(odd.body.scores)).toEqual(['d1']);
  });

  it('scores given passages with ts_rank_cd', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'pg',
      query: 'shock wave',
      passages: ['a shock wave', 'nothing relevant', ''],
    });
    expect(status).toBe(200);
    expect(body.scores[0]).toBeGreaterThan(0);
    expect(body.scores.slice(1)).toEqual([0, 0]);
  });

  it('serves the table as a collection for content and rerank stages', async () => {
    const content = await post(app, '/content', { collection: 'pgdocs', id: 'd3' });
    expect(content.body).toMatchObject({ id: 'd3', text: DOCS[2]!.text, title: 'Shock waves' });
    const missing = await post(app, '/content', { collection: 'pgdocs', id: 'nope' });
    expect(missing.body.code).toBe('ERR_DOC_NOT_FOUND');
    const pipeline = await post(app, '/pipeline', {
      pipeline: 'pg%5 >> pg',
      query: 'boundary layer',
      collection: 'pgdocs',
    });
    expect(pipeline.status).toBe(200);
    expect(Object.keys(pipeline.body.scores).sort()).toEqual(['d2', 'd5']);
  });

  it('takes hostile queries as text, never as SQL', async () => {
    for (const query of [
      "'); DROP TABLE docs; --",
      '\\',
      '"unclosed',
      '!!!',
      '😀 boundary',
      'a'.repeat(5000),
    ]) {
      const { status } = await post(app, '/search', { service: 'pg', query, limit: 5 });
      expect(status).toBe(200);
    }
    expect(server.psql('SELECT count(*) FROM docs').trim()).toBe(String(DOCS.length));
  });

  it('rejects bad requests with 400 naming the field', async () => {
    const noSubsetField = await backendApp({
      services: [
        {
          name: 'plain',
          engine: 'Postgres',
          config: {
            connection_string: server.url,
            table: 'docs',
            password_env: 'IRSERVE_TEST_PGPASSWORD',
          },
        },
      ],
    });
    apps.push(noSubsetField.app);
    const subset = await post(noSubsetField.app, '/search', {
      service: 'plain',
      query: 'x',
      subset: 'odd',
    });
    expect(subset.status).toBe(400);
    expect(subset.body.error).toMatch(/subset_field/);
    const long = await post(app, '/search', { service: 'pg', query: 'x'.repeat(20_000) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/query/);
  });

  it('fails a slow statement with ERR_UPSTREAM_TIMEOUT in bounded time, other services unaffected', async () => {
    const started = Date.now();
    const [slow, fast] = await Promise.all([
      post(app, '/search', { service: 'slow', query: 'thrust', limit: 5 }),
      post(app, '/search', { service: 'pg', query: 'thrust', limit: 5 }),
    ]);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(slow.status).toBe(504);
    expect(slow.body.code).toBe('ERR_UPSTREAM_TIMEOUT');
    expect(fast.status).toBe(200);
    expect(Object.keys(fast.body.scores).sort()).toEqual(['d1', 'd6']);
  });

  it('fails a burst of slow requests together: a timed-out batch is not re-run item by item', async () => {
    // 12 at once: one batch of 1, then one of 11. Re-run one by one, the 11 would take 11
    // statement timeouts (3.3 s and more) before their 504.
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(app, '/search', { service: 'slow', query: `thrust or burst${i}`, limit: 5 }),
      ),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    for (const answer of answers) {
      expect(answer.status).toBe(504);
      expect(answer.body.code).toBe('ERR_UPSTREAM_TIMEOUT');
    }
  });

  it('cancels the statement on the server once its request has timed out', async () => {
    // The engine would let the statement run its 3 s (statement_timeout 30 s): the request
    // gives up after 0.3 s, and the server is told to stop at once.
    const running = () =>
      Number(
        server.psql(
          `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%slow_docs%' AND pid <> pg_backend_pid()`,
        ),
      );
    const search = { service: 'patient', query: 'thrust', limit: 5, timeout: 0.3 };
    const answer = await post(app, '/search', search);
    expect(answer.status).toBe(504);
    await waitFor(async () => running() === 0, 1_000);
    // The pool's one connection was handed back: the next request's statement reaches the
    // server at once, and is cancelled in turn.
    const next = post(app, '/search', { ...search, timeout: 1.5 });
    await waitFor(async () => running() === 1, 1_000);
    expect((await next).status).toBe(504);
    await waitFor(async () => running() === 0, 1_000);
  });

  it("cancels a content lookup's statement once its client leaves", async () => {
    const lookups = () =>
      Number(
        server.psql(
          `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%slow_docs%' AND pid <> pg_backend_pid()`,
        ),
      );
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const request = postOverSocket(url, '/content', { collection: 'slowpg', id: 'd1' });
    await waitFor(async () => lookups() === 1, 2_000);
    request.destroy();
    // Without the cut the statement would hold the pool's one connection for its 3 s.
    await waitFor(async () => lookups() === 0, 1_000);
  });

  it('reports the back-end in /health', async () => {
    const { status, body } = await health(app);
    expect(status).toBe(200);
    expect(body.ready).toBe(true);
    expect(body.engines.find((e: { service: string }) => e.service === 'pg').state).toBe('up');
    const one = await health(app, 'pg');
    expect(one.status).toBe(200);
    expect(one.body.service).toEqual({ name: 'pg', available: true });
    expect(await unavailable(app)).toEqual([]);
  });

  it('an idle connection the server drops leaves the service available; the next request answers', async () => {
    await post(app, '/search', { service: 'pg', query: 'thrust', limit: 5 });
    server.psql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'irserve'`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await unavailable(app)).not.toContain('pg');
    const after = await post(app, '/search', { service: 'pg', query: 'thrust', limit: 5 });
    expect(after.status).toBe(200);
    expect(Object.keys(after.body.scores).sort()).toEqual(['d1', 'd6']);
  });

  it('answers /health?service= for unknown, malformed and hostile names with a clear error', async () => {
    const unknown = await health(app, 'nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('ERR_SERVICE_NOT_FOUND');
    const long = await health(app, 'x'.repeat(5000));
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/service/);
    const hostile = await health(app, '__proto__');
    expect(hostile.status).toBe(400);
    expect(hostile.body.code).toBe('ERR_SERVICE_NOT_FOUND');
    const twice = await app.http.inject({ method: 'GET', url: '/health?service=pg&service=pg' });
    expect(twice.statusCode).toBe(400);
    const empty = await app.http.inject({ method: 'GET', url: '/health?service=' });
    expect(empty.statusCode).toBe(400);
  });

  it('never logs the password, even when it is wrong', async () => {
    process.env.IRSERVE_TEST_PG_WRONG = 'wrong-pass-Q9z';
    const wrong = await backendApp({
      services: [
        {
          name: 'wrong',
          engine: 'Postgres',
          config: {
            connection_string: server.url,
            table: 'docs',
            password_env: 'IRSERVE_TEST_PG_WRONG',
          },
        },
      ],
    });
    apps.push(wrong.app);
    const answer = await post(wrong.app, '/search', { service: 'wrong', query: 'x' });
    expect(answer.status).toBe(502);
    expect(answer.body.code).toBe('ERR_UPSTREAM');
    expect(answer.body.error).toMatch(/password authentication failed/);
    const logs =
      wrong.logs.join('') +
      JSON.stringify(answer.body) +
      JSON.stringify((await health(wrong.app)).body);
    expect(logs).not.toContain('wrong-pass-Q9z');
    expect(logs).not.toContain(server.password);
  });
});

describe.skipIf(!available)('Postgres engine, back-end down at start', () => {
  it('starts anyway, says unavailable, and serves once the server comes up', async () => {
    const server = new PostgresServer();
    server.port = await freePort();
    process.env.IRSERVE_TEST_PGPASSWORD_LATE = server.password;
    const { app } = await backendApp({
      services: [
        {
          name: 'late',
          engine: 'Postgres',
          config: {
            connection_string: server.url,
            table: 'docs',
            password_env: 'IRSERVE_TEST_PGPASSWORD_LATE',
            reconnect_max_wait: 1,
          },
        },
      ],
    });
    try {
      const before = await post(app, '/search', { service: 'late', query: 'thrust' });
      expect(before.status).toBe(502);
      expect(before.body.error).toMatch(/unavailable/);
      const down = await health(app);
      expect(down.body.status).toBe('degraded');
      expect(down.body.engines[0]).toMatchObject({ service: 'late', state: 'down' });
      // Listed as unavailable, and a per-service health check a load balancer can act on.
      expect(await unavailable(app)).toEqual(['late']);
      const probe = await health(app, 'late');
      expect(probe.status).toBe(503);
      expect(probe.body.service).toEqual({ name: 'late', available: false });
      await server.start();
      server.psql(
        `CREATE TABLE docs (id text PRIMARY KEY, text text); INSERT INTO docs VALUES ('d1', 'jet thrust')`,
      );
      await waitFor(async () => (await health(app)).body.engines[0].state === 'up', 15_000);
      const after = await post(app, '/search', { service: 'late', query: 'thrust' });
      expect(after.status).toBe(200);
      expect(Object.keys(after.body.scores)).toEqual(['d1']);
      expect(await unavailable(app)).toEqual([]);
      expect((await health(app, 'late')).status).toBe(200);
    } finally {
      await app.close();
      await server.destroy();
    }
  }, 60_000);
});
