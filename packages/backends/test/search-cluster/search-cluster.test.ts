/**
 * The OpenSearch and Elasticsearch engines, each against its cluster: a real one when
 * IRSERVE_TEST_OPENSEARCH_URL / IRSERVE_TEST_ELASTICSEARCH_URL is set, else a local server
 * speaking the documented wire format. irserve's scores must equal the cluster's own `_search`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { backendApp, health, post } from '../helpers/app.js';
import { clusterUnderTest, type ClusterUnderTest } from '../helpers/cluster-under-test.js';
import { DOCS } from '../helpers/corpus.js';
import { TOY_DIM, ToyEmbedder, toyVector } from '../helpers/toy-embedder.js';

const ENGINE = { opensearch: 'OpenSearch', elasticsearch: 'Elasticsearch' } as const;

describe.each(['opensearch', 'elasticsearch'] as const)('%s engine', (flavor) => {
  let cluster: ClusterUnderTest;
  let app: App;

  beforeAll(async () => {
    cluster = await clusterUnderTest(
      flavor,
      DOCS.map((d) => ({
        id: d.id,
        source: {
          title: d.title,
          text: d.text,
          subset: d.subset,
          docid: d.id,
          embedding: Array.from(toyVector(`${d.title} ${d.text}`)),
        },
      })),
      TOY_DIM,
    );
    const base = { node: cluster.url, index: cluster.index, subset_field: 'subset' };
    app = (
      await backendApp({
        services: [
          { name: 'toy', engine: 'ToyEmbedder' },
          {
            name: 'bm25',
            engine: ENGINE[flavor],
            config: { ...base, collection: 'es-docs', title_field: 'title' },
          },
          {
            name: 'multi',
            engine: ENGINE[flavor],
            config: { ...base, fields: ['title^2', 'text'] },
          },
          {
            name: 'byfield',
            engine: ENGINE[flavor],
            config: { ...base, id_field: 'docid', collection: 'by-field' },
          },
          {
            name: 'knn',
            engine: ENGINE[flavor],
            config: { ...base, mode: 'knn', embedding: { service: 'toy' } },
          },
        ],
      })
    ).app;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await cluster?.close();
  });

  it('BM25 scores equal the cluster’s own for the same match query', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'bm25',
      query: 'boundary layer flow',
      limit: 10,
    });
    expect(status).toBe(200);
    const direct = await cluster.search({
      size: 10,
      query: { match: { text: { query: 'boundary layer flow' } } },
    });
    expect(Object.keys(body.scores).sort()).toEqual(direct.map((h) => h._id).sort());
    for (const hit of direct) expect(body.scores[hit._id]).toBeCloseTo(hit._score, 5);
  });

  it('multi_match over boosted fields, subset filters, limit cuts, ids from a source field', async () => {
    const title = await post(app, '/search', { service: 'multi', query: 'propellers', limit: 5 });
    expect(Object.keys(title.body.scores)).toEqual(['d6']);
    const odd = await post(app, '/search', {
      service: 'bm25',
      query: 'boundary layer',
      limit: 10,
      subset: 'odd',
    });
    expect(Object.keys(odd.body.scores)).toEqual(['d5']);
    const one = await post(app, '/search', { service: 'bm25', query: 'boundary layer', limit: 1 });
    expect(Object.keys(one.body.scores)).toHaveLength(1);
    const byField = await post(app, '/search', { service: 'byfield', query: 'thrust', limit: 5 });
    expect(Object.keys(byField.body.scores).sort()).toEqual(['d1', 'd6']);
  });

  it('kNN embeds the query with the embedder service and matches the cluster’s knn query', async () => {
    const query = 'boundary layer transition';
    const { status, body } = await post(app, '/search', { service: 'knn', query, limit: 3 });
    expect(status).toBe(200);
    const vector = Array.from(toyVector(query));
    const knn =
      flavor === 'opensearch'
        ? { embedding: { vector, k: 6 } }
        : { field: 'embedding', query_vector: vector, k: 6, num_candidates: 12 };
    const direct = (await cluster.search({ size: 3, query: { knn } })).slice(0, 3);
    for (const hit of direct) expect(body.scores[hit._id]).toBeCloseTo(hit._score, 4);
    const even = await post(app, '/search', { service: 'knn', query, limit: 10, subset: 'even' });
    expect(Object.keys(even.body.scores).every((id) => ['d2', 'd4', 'd6'].includes(id))).toBe(true);
  });

  it('passes the batch’s signal on to the embedder service, which may stop when nobody waits', async () => {
    ToyEmbedder.lastSignal = undefined;
    const search = { service: 'knn', query: 'shock', limit: 3, timeout: 5 };
    expect((await post(app, '/search', search)).status).toBe(200);
    expect(ToyEmbedder.lastSignal).toBeInstanceOf(AbortSignal);
  });

  it('fuses BM25 and kNN over the same index, and reranks from the index’s collection view', async () => {
    const fused = await post(app, '/pipeline', {
      pipeline: '{bm25, knn}RRF%4',
      query: 'shock wave',
      collection: 'es-docs',
    });
    expect(fused.status).toBe(200);
    expect(Object.keys(fused.body.scores)).toHaveLength(4);
    const reranked = await post(app, '/pipeline', {
      pipeline: 'bm25%5 >> knn',
      query: 'boundary layer',
      collection: 'es-docs',
    });
    expect(reranked.status).toBe(200);
    expect(Object.keys(reranked.body.scores).sort()).toEqual(['d2', 'd5']);
    const content = await post(app, '/content', { collection: 'es-docs', id: 'd4' });
    expect(content.body).toMatchObject({ text: DOCS[3]!.text, title: 'Wing flutter' });
    expect((await post(app, '/content', { collection: 'by-field', id: 'd4' })).body.text).toBe(
      DOCS[3]!.text,
    );
    expect((await post(app, '/content', { collection: 'es-docs', id: 'nope' })).body.code).toBe(
      'ERR_DOC_NOT_FOUND',
    );
  });

  it('refuses to score free text in BM25 mode, and bad requests, with 400', async () => {
    const score = await post(app, '/score', { service: 'bm25', query: 'x', passages: ['y'] });
    expect(score.status).toBe(400);
    expect(score.body.error).toMatch(/knn service or a reranker/);
    for (const query of ['"unclosed', '{"query": 1}', '\\', 'a'.repeat(5000)])
      expect((await post(app, '/search', { service: 'bm25', query, limit: 3 })).status).toBe(200);
    expect((await post(app, '/search', { service: 'bm25', query: 'x', limit: 0 })).status).toBe(
      400,
    );
  });

  it('lists the cluster as up in /health', async () => {
    const { body } = await health(app);
    expect(body.engines.filter((e: { state: string }) => e.state === 'up')).toHaveLength(4);
  });
});
