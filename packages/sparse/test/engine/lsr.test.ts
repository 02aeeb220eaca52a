import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { post, startApp } from '../helpers/app.js';
import { toyEncode } from '../helpers/tei-server.js';
import { lsrWorld, type LsrWorld } from '../helpers/world.js';

/** The score the index gives: sum of trunc(50 w_q) * trunc(50 w_d) over shared tokens. */
function expectedScore(query: Record<string, number>, passage: Record<string, number>): number {
  let score = 0;
  for (const [token, weight] of Object.entries(query))
    if (passage[token] !== undefined)
      score += Math.trunc(weight * 50) * Math.trunc(passage[token] * 50);
  return score;
}

describe('LSR engine', () => {
  let world: LsrWorld;
  let app: App;

  beforeAll(async () => {
    world = await lsrWorld();
    app = await startApp(world.config({ id_to_subset_mapping: 'subsets.tsv' }), world.dir);
  });
  afterAll(async () => {
    await app?.close();
    await world?.tei.close();
  });

  it('encodes the query through TEI and ranks documents by their best passage (MaxP)', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'lsr',
      query: 'jet engines thrust',
      limit: 3,
    });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores);
    expect(ids[0]).toBe('d1');
    expect(new Set(ids).size).toBe(ids.length);
    const query = toyEncode('jet engines thrust');
    const best = Math.max(
      expectedScore(query, toyEncode('Jet engines')),
      expectedScore(query, toyEncode('turbine thrust of jet engines')),
    );
    expect(body.scores.d1).toBe(best);
    expect(body.scores.d6).toBe(
      expectedScore(query, toyEncode('propeller noise and thrust at low speed')),
    );
  });

  it('encodes the distinct queries of a batch in one TEI call, with the key as bearer', async () => {
    const before = world.tei.calls.length;
    const queries = ['shock wave', 'flutter wings', 'heat transfer', 'shock wave'];
    const replies = await Promise.all(
      queries.map((query, i) => post(app, '/search', { service: 'lsr', query, limit: 1 + i })),
    );
    expect(replies.map((r) => Object.keys(r.body.scores)[0])).toEqual(['d3', 'd4', 'd5', 'd3']);
    const calls = world.tei.calls.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.inputs.sort()).toEqual(['flutter wings', 'heat transfer', 'shock wave']);
    expect(calls[0]!.truncate).toBe(true);
    expect(calls[0]!.authorization).toBe('Bearer tei-secret');
  });

  it('finds nothing for a blank query, without calling the encoder (issue 39, item 6)', async () => {
    const before = world.tei.calls.length;
    for (const query of ['', '  \t'])
      for (const service of ['lsr', 'vectors']) {
        const reply = await post(app, '/search', { service, query, limit: 3 });
        expect(reply).toMatchObject({ status: 200, body: { scores: {} } });
      }
    expect(world.tei.calls.length).toBe(before);
    // A pre-encoded query_vector with a blank query is searched as usual.
    const vector = await post(app, '/search', {
      service: 'vectors',
      query: '',
      query_vector: toyEncode('heat transfer'),
      limit: 1,
    });
    expect(Object.keys(vector.body.scores)).toEqual(['d5']);
  });

  it('searches a pre-encoded query_vector without calling the encoder, keyed by it in the cache', async () => {
    const before = world.tei.calls.length;
    const a = await post(app, '/search', {
      service: 'lsr',
      query: 'same text',
      limit: 2,
      query_vector: { propeller: 2 },
    });
    const b = await post(app, '/search', {
      service: 'lsr',
      query: 'same text',
      limit: 2,
      query_vector: { laminar: 2 },
    });
    expect(Object.keys(a.body.scores)).toEqual(['d6']);
    expect(Object.keys(b.body.scores)).toEqual(['d2']);
    expect(b.body.cached).toBe(false);
    expect(world.tei.calls.length).toBe(before);
  });

  it('rejects a malformed query_vector with 400 naming the field', async () => {
    for (const query_vector of [
      [1, 2],
      'cat',
      { cat: -1 },
      { cat: 'NaN' },
      { cat: null },
      { ['x'.repeat(2000)]: 1 },
      Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`t${i}`, 1])),
    ]) {
      const { status, body } = await post(app, '/search', {
        service: 'lsr',
        query: 'q',
        limit: 1,
        query_vector,
      });
      expect(status).toBe(400);
      expect(body.code).toBe('ERR_BAD_REQUEST');
      expect(body.error).toContain('query_vector');
    }
  });

  it('restricts results to a subset inside the search', async () => {
    const { body } = await post(app, '/search', {
      service: 'lsr',
      query: 'thrust speed flow',
      limit: 10,
      subset: 'even',
    });
    expect(Object.keys(body.scores).sort()).toEqual(['d2', 'd4', 'd6']);
    const unknown = await post(app, '/search', {
      service: 'lsr',
      query: 'x',
      limit: 1,
      subset: 'nope',
    });
    expect(unknown.status).toBe(400);
  });

  it('scores passages by encoding them with the same model', async () => {
    const passages = ['jet engines', 'laminar flow', 'nothing known here'];
    const { status, body } = await post(app, '/score', {
      service: 'lsr',
      query: 'jet flow',
      passages,
    });
    expect(status).toBe(200);
    const query = toyEncode('jet flow');
    expect(body.scores).toEqual(passages.map((p) => expectedScore(query, toyEncode(p))));
  });

  it('serves Sparse (no encoder) from query_vector only, with a clear error otherwise', async () => {
    const ok = await post(app, '/search', {
      service: 'vectors',
      query: 'q',
      limit: 5,
      query_vector: { hypersonic: 1.5 },
    });
    expect(Object.keys(ok.body.scores)).toEqual(['d5']);
    const missing = await post(app, '/search', { service: 'vectors', query: 'q', limit: 5 });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('query_vector');
    const score = await post(app, '/score', { service: 'vectors', query: 'q', passages: ['a'] });
    expect(score.status).toBe(400);
    expect(score.body).toMatchObject({ code: 'ERR_SERVICE_NOT_FOUND', role: 'score' });
  });

  it('offers an encoder-less service for search only: not score, not embed_sparse (issue 39, item 16)', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.search).toContain('vectors');
    expect(avail.score).not.toContain('vectors');
    expect(avail.embed_sparse).toEqual(['lsr']);
    // TEI's /embed_sparse takes the only model that can embed (it counted "vectors" too and
    // asked to choose between two).
    const { status, body } = await post(app, '/embed_sparse', { inputs: ['jet flow'] });
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    const models = (await app.http.inject({ method: 'GET', url: '/v1/models' })).json();
    expect(models.data.map((model: { id: string }) => model.id)).not.toContain('vectors');
  });

  it('runs in a hybrid pipeline {bm25, lsr}RRF%100, and takes query_vector through runtime_kwargs', async () => {
    const hybrid = await post(app, '/pipeline', {
      pipeline: '{bm25, lsr}RRF%100',
      query: 'shock wave wedge',
      collection: 'aero',
    });
    expect(hybrid.status).toBe(200);
    expect(Object.keys(hybrid.body.scores)[0]).toBe('d3');
    const kwargs = await post(app, '/pipeline', {
      pipeline: '{bm25, vectors}RRF%100',
      query: 'propeller noise',
      collection: 'aero',
      runtime_kwargs: { vectors: { query_vector: { propeller: 2, noise: 1 } } },
    });
    expect(kwargs.status).toBe(200);
    expect(Object.keys(kwargs.body.scores)[0]).toBe('d6');
  });

  it('answers 502 when TEI fails or returns token ids outside the vocabulary', async () => {
    world.tei.failWith(400);
    const failed = await post(app, '/search', {
      service: 'lsr',
      query: 'speed of wings',
      limit: 1,
    });
    world.tei.failWith('garbage');
    const garbage = await post(app, '/search', { service: 'lsr', query: 'wings speed', limit: 1 });
    world.tei.failWith(undefined);
    expect(failed.status).toBe(502);
    expect(garbage.status).toBe(502);
    expect(garbage.body.error).toContain('outside the vocabulary');
  });

  it('stops retrying TEI once the request has timed out', async () => {
    world.tei.failWith(503);
    try {
      const before = world.tei.calls.length;
      const search = { service: 'lsr', query: 'transonic flutter', limit: 1, timeout: 0.03 };
      expect((await post(app, '/search', search)).status).toBe(504);
      // Four attempts would be made with the retries' backoff (0.05-0.1 s, then 0.1-0.2, 0.2-0.4).
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(world.tei.calls.length - before).toBeLessThanOrEqual(1);
    } finally {
      world.tei.failWith(undefined);
    }
  });
});
