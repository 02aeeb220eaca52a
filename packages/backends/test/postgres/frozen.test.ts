/**
 * Issue 39, item 10: a PostgreSQL server that stops answering (every process SIGSTOPped: TCP
 * connections are accepted, nothing is answered). Every request fails with 504 within the
 * engine's `timeout`, the wait for a pooled connection included (it took twice the timeout),
 * `/health` says the service is unavailable, and once the server runs again the service comes
 * back without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { backendApp, health, post, unavailable } from '../helpers/app.js';
import { DOCS, literal } from '../helpers/corpus.js';
import { PostgresServer, postgresAvailable } from '../helpers/postgres-server.js';
import { waitFor } from '../helpers/ports.js';

const available = postgresAvailable();

describe.skipIf(!available)('Postgres engine, server frozen', () => {
  const server = new PostgresServer();
  let app: App | undefined;
  let frozen = false;

  beforeAll(async () => {
    process.env.IRSERVE_TEST_PGPASSWORD = server.password;
    await server.start();
    server.psql(
      `CREATE TABLE docs (id text PRIMARY KEY, title text, text text, subset text);` +
        `INSERT INTO docs VALUES ${DOCS.map((d) => `(${literal(d.id)}, ${literal(d.title)}, ${literal(d.text)}, ${literal(d.subset)})`).join(',')};`,
    );
    const config = {
      connection_string: server.url,
      table: 'docs',
      password_env: 'IRSERVE_TEST_PGPASSWORD',
      timeout: 1,
      pool_size: 2,
      retries: 1,
      reconnect_max_wait: 1,
    };
    app = (
      await backendApp({
        services: [
          { name: 'pg', engine: 'Postgres', batch_size: 1, max_concurrent_batches: 8, config },
        ],
      })
    ).app;
  }, 60_000);

  afterAll(async () => {
    if (frozen) server.signalAll('SIGCONT');
    await app?.close();
    await server.destroy();
  });

  it('answers 504 within the timeout, says unavailable, and recovers once the server runs', async () => {
    expect((await post(app!, '/search', { service: 'pg', query: 'thrust', limit: 5 })).status).toBe(
      200,
    );
    server.signalAll('SIGSTOP');
    frozen = true;
    // 6 requests on a pool of 2: four of them wait for a connection that never comes back.
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const answer = await post(app!, '/search', {
          service: 'pg',
          query: `thrust ${i}`,
          limit: 5,
        });
        return { answer, took: Date.now() - started };
      }),
    );
    for (const { answer, took } of answers) {
      expect(answer.status).toBe(504);
      expect(answer.body.code).toBe('ERR_UPSTREAM_TIMEOUT');
      expect(took).toBeLessThan(1_700); // the timeout (1 s) and scheduling; 2.5 s before
    }
    // A fresh connection gets no answer either (within 5 s): the service is listed as unavailable.
    await waitFor(async () => (await unavailable(app!)).includes('pg'), 10_000);
    expect((await health(app!, 'pg')).status).toBe(503);
    server.signalAll('SIGCONT');
    frozen = false;
    await waitFor(async () => (await unavailable(app!)).length === 0, 10_000);
    const after = await post(app!, '/search', { service: 'pg', query: 'thrust', limit: 5 });
    expect(after.status).toBe(200);
    expect(Object.keys(after.body.scores).sort()).toEqual(['d1', 'd6']);
  }, 30_000);
});
