/**
 * The Postgres engine in vector mode against pgvector, in PGlite (Postgres in WebAssembly with
 * its pgvector extension, from npm) served over the wire protocol on loopback. The query is
 * embedded by an embedder service of the same app (`embedding.service`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { backendApp, post } from '../helpers/app.js';
import { DOCS, literal } from '../helpers/corpus.js';
import { PgliteServer } from '../helpers/pglite-server.js';
import { compare } from '../../src/common/similarity.js';
import { toyVector } from '../helpers/toy-embedder.js';

const DISTANCES = ['inner_product', 'cosine', 'l2'] as const;

describe('Postgres engine, pgvector kNN (PGlite)', () => {
  const server = new PgliteServer();
  let app: App;

  beforeAll(async () => {
    const rows = DOCS.map(
      (d) =>
        `(${literal(d.id)}, ${literal(d.text)}, ${literal(d.subset)}, '[${Array.from(toyVector(`${d.title} ${d.text}`)).join(',')}]')`,
    );
    await server.start(
      `CREATE EXTENSION IF NOT EXISTS vector;` +
        `CREATE TABLE docs (id text PRIMARY KEY, text text, subset text, embedding vector(8));` +
        `INSERT INTO docs VALUES ${rows.join(',')};`,
    );
    app = (
      await backendApp({
        services: [
          { name: 'toy', engine: 'ToyEmbedder' },
          ...DISTANCES.map((distance) => ({
            name: `pgv-${distance}`,
            engine: 'Postgres',
            config: {
              connection_string: server.url,
              table: 'docs',
              mode: 'vector',
              distance,
              subset_field: 'subset',
              pool_size: 2,
              embedding: { service: 'toy' },
            },
          })),
        ],
      })
    ).app;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await server.stop();
  });

  for (const distance of DISTANCES) {
    it(`ranks by ${distance} like the vectors say`, async () => {
      const query = 'boundary layer transition';
      const { status, body } = await post(app, '/search', {
        service: `pgv-${distance}`,
        query,
        limit: 3,
      });
      expect(status).toBe(200);
      const expected = DOCS.map((d) => ({
        id: d.id,
        score: compare(toyVector(query), toyVector(`${d.title} ${d.text}`), distance),
      }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 3);
      expect(Object.keys(body.scores)).toHaveLength(3);
      for (const { id, score } of expected) expect(body.scores[id]).toBeCloseTo(score, 4);
    });
  }

  it('finds nothing for a blank query, without embedding it (issue 39, item 6)', async () => {
    for (const query of ['', '  '])
      expect(await post(app, '/search', { service: 'pgv-cosine', query, limit: 3 })).toMatchObject({
        status: 200,
        body: { scores: {} },
      });
  });

  it('filters by subset and scores passages with the same similarity', async () => {
    const even = await post(app, '/search', {
      service: 'pgv-cosine',
      query: 'thrust',
      limit: 10,
      subset: 'even',
    });
    expect(Object.keys(even.body.scores).sort()).toEqual(['d2', 'd4', 'd6']);
    const scored = await post(app, '/score', {
      service: 'pgv-cosine',
      query: 'jet thrust',
      passages: ['jet thrust', 'wing'],
    });
    expect(scored.body.scores[0]).toBeCloseTo(1, 5);
    expect(scored.body.scores[1]).toBeCloseTo(
      compare(toyVector('jet thrust'), toyVector('wing'), 'cosine'),
      5,
    );
  });

  it('fuses with another retriever in a pipeline', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: '{pgv-cosine, pgv-l2}RRF%4',
      query: 'shock wave',
      collection: 'unused',
    });
    expect(status).toBe(200);
    expect(Object.keys(body.scores)).toHaveLength(4);
  });

  it('fails the start when the embedder service does not exist', async () => {
    const { app: bad } = await backendApp(
      {
        services: [
          {
            name: 'pg-bad-embedder',
            engine: 'Postgres',
            config: {
              connection_string: server.url,
              table: 'docs',
              mode: 'vector',
              embedding: { service: 'nothing' },
            },
          },
        ],
      },
      false,
    );
    await expect(bad.start()).rejects.toThrow(/pg-bad-embedder.*no service named "nothing"/s);
    await bad.close();
  });

  it('refuses a vector config without an embedder, and SQL in identifiers', async () => {
    const start = (config: Record<string, unknown>) =>
      backendApp(
        {
          services: [
            { name: 'p', engine: 'Postgres', config: { connection_string: server.url, ...config } },
          ],
        },
        false,
      );
    await expect(start({ table: 'docs', mode: 'vector' })).rejects.toThrow(/config\.embedding/);
    await expect(start({ table: 'docs; DROP TABLE docs' })).rejects.toThrow(/config\.table/);
    await expect(start({ table: 'docs', id_column: 'id" --' })).rejects.toThrow(
      /config\.id_column/,
    );
    await expect(start({ table: 'docs', tabel: 'x' })).rejects.toThrow(/did you mean "table"/);
  });
});
