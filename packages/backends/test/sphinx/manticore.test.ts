/**
 * The Manticore engine (and its Sphinx name) against two real Sphinx `searchd` processes holding
 * the two halves of one distributed index: every document is found whichever half holds it,
 * the weights are Sphinx's own BM25, subsets filter, faults map to ERR_UPSTREAM.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { backendApp, health, post } from '../helpers/app.js';
import { DOCS } from '../helpers/corpus.js';
import { freePort, waitFor } from '../helpers/ports.js';
import { SearchdServer, searchdAvailable } from '../helpers/searchd-server.js';

const available = searchdAvailable();

describe.skipIf(!available)('Manticore / Sphinx engine over a distributed index', () => {
  const half = new SearchdServer();
  const head = new SearchdServer();
  let app: App;

  const service = (name: string, config: Record<string, unknown> = {}) => ({
    name,
    engine: name === 'sphinx' ? 'Sphinx' : 'Manticore',
    config: {
      port: head.sqlPort,
      index: 'dist',
      id_attribute: 'docid',
      subset_field: 'subset',
      ...config,
    },
  });

  beforeAll(async () => {
    await half.start();
    await head.start([`127.0.0.1:${half.apiPort}`]);
    await head.insert(DOCS.slice(0, 3), 1);
    await half.insert(DOCS.slice(3), 100);
    app = (
      await backendApp({
        services: [
          service('manticore'),
          service('sphinx', { fields: ['content'] }),
          service('native', { mode: 'native' }),
          service('numeric', { id_attribute: undefined, index: 'rt' }),
        ],
      })
    ).app;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await head.destroy();
    await half.destroy();
  });

  it('finds documents on both halves, scored by the server’s BM25', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'manticore',
      query: 'thrust',
      limit: 10,
    });
    expect(status).toBe(200);
    // d1 is on the head's half, d6 on the other's.
    expect(Object.keys(body.scores).sort()).toEqual(['d1', 'd6']);
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: head.sqlPort });
    const [rows] = await connection.query(
      "SELECT docid, WEIGHT() AS w FROM dist WHERE MATCH('thrust') OPTION ranker=expr('1000000*bm25a(1.2,0.75)')",
    );
    await connection.end();
    for (const row of rows as { docid: string; w: number }[])
      expect(body.scores[row.docid]).toBeCloseTo(row.w / 1e6, 6);
  });

  it('filters by subset, cuts to limit, restricts fields', async () => {
    const even = await post(app, '/search', {
      service: 'manticore',
      query: 'boundary layer',
      limit: 10,
      subset: 'even',
    });
    expect(Object.keys(even.body.scores)).toEqual(['d2']);
    const one = await post(app, '/search', {
      service: 'manticore',
      query: 'boundary layer',
      limit: 1,
    });
    expect(Object.keys(one.body.scores)).toHaveLength(1);
    // "Propellers" is a title word: the sphinx service matches the content field only.
    expect(
      (await post(app, '/search', { service: 'manticore', query: 'propellers' })).body.scores,
    ).toHaveProperty('d6');
    expect(
      (await post(app, '/search', { service: 'sphinx', query: 'propellers' })).body.scores,
    ).toEqual({});
  });

  it('uses the numeric document id when no id attribute is set, and the native ranker', async () => {
    const numeric = await post(app, '/search', { service: 'numeric', query: 'thrust' });
    expect(Object.keys(numeric.body.scores)).toEqual(['1']);
    const native = await post(app, '/search', { service: 'native', query: 'thrust' });
    expect(Object.keys(native.body.scores).sort()).toEqual(['d1', 'd6']);
  });

  it('takes query-syntax operators and hostile text as words', async () => {
    for (const query of [
      'thrust -jet',
      '"unclosed',
      '@title thrust',
      "'; DROP TABLE rt; --",
      '\\',
      '((((',
      'a'.repeat(3000),
      '😀',
    ]) {
      const answer = await post(app, '/search', { service: 'manticore', query, limit: 5 });
      expect(answer.status, `${query}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    expect(
      Object.keys(
        (await post(app, '/search', { service: 'manticore', query: 'thrust -jet' })).body.scores,
      ).sort(),
    ).toEqual(['d1', 'd6']);
  });

  it('rejects a config naming an index the server lacks, listing the indexes', async () => {
    const { app: wrong } = await backendApp({
      services: [service('manticore', { index: 'nope', reconnect_max_wait: 60 })],
    });
    const answer = await post(wrong, '/search', { service: 'manticore', query: 'x' });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatch(/index "nope" not found.*dist/);
    await wrong.close();
  });

  it('rejects bad config values with ERR_CONFIG naming the field', async () => {
    await expect(backendApp({ services: [service('m', { index: 'dist; DROP' })] })).rejects.toThrow(
      /config\.index/,
    );
    await expect(backendApp({ services: [service('m', { mode: 'knn' })] })).rejects.toThrow(
      /vector_attribute/,
    );
  });

  it('a server that is down at start comes back without a restart', async () => {
    const late = new SearchdServer();
    late.sqlPort = await freePort();
    const { app: lateApp } = await backendApp({
      services: [
        {
          name: 'late',
          engine: 'Manticore',
          config: { port: late.sqlPort, index: 'rt', reconnect_max_wait: 1 },
        },
      ],
    });
    try {
      expect((await post(lateApp, '/search', { service: 'late', query: 'x' })).body.code).toBe(
        'ERR_UPSTREAM',
      );
      expect((await health(lateApp)).body.engines[0].state).toBe('down');
      await late.start();
      await late.insert(DOCS.slice(0, 1), 1);
      await waitFor(async () => (await health(lateApp)).body.engines[0].state === 'up', 15_000);
      expect(
        Object.keys(
          (await post(lateApp, '/search', { service: 'late', query: 'thrust' })).body.scores,
        ),
      ).toEqual(['1']);
    } finally {
      await lateApp.close();
      await late.destroy();
    }
  }, 30_000);
});
