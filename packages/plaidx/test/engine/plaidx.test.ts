import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { post, startApp } from './app.js';
import { wordVectors } from './encoder-server.js';
import { DIM, plaidWorld, type PlaidWorld } from './world.js';

describe('PLAIDX engine', () => {
  let world: PlaidWorld;
  let app: App;

  beforeAll(async () => {
    world = await plaidWorld();
    app = await startApp(world.config({ id_to_subset_mapping: 'subsets.tsv' }), world.dir);
  });
  afterAll(async () => {
    await app?.close();
    await world?.encoder.close();
  });

  it('searches text queries through the HTTP encoder and ranks documents by their best passage (MaxP)', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'plaidx',
      query: 'shock wave wedge',
      limit: 3,
    });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores as Record<string, number>);
    expect(ids[0]).toBe('d3');
    expect(ids.length).toBeLessThanOrEqual(3);
    expect(new Set(ids).size).toBe(ids.length);
    expect(world.encoder.calls.at(-1)!.authorization).toBe('Bearer sk-test-secret');
  });

  it('accepts pre-encoded query token vectors instead of text', async () => {
    const query_vectors = wordVectors('propeller noise', DIM);
    const { status, body } = await post(app, '/search', {
      service: 'plaidx',
      query: 'ignored',
      query_vectors,
      limit: 2,
    });
    expect(status).toBe(200);
    expect(Object.keys(body.scores)[0]).toBe('d6');
    expect(body.scores.d6).toBeCloseTo(2, 1);
  });

  it('finds nothing for a blank query without query_vectors (issue 39, item 6)', async () => {
    const calls = world.encoder.calls.length;
    for (const query of ['', ' \n '])
      expect(await post(app, '/search', { service: 'plaidx', query, limit: 3 })).toMatchObject({
        status: 200,
        body: { scores: {} },
      });
    expect(world.encoder.calls.length).toBe(calls);
    const query_vectors = wordVectors('propeller noise', DIM);
    const vectors = await post(app, '/search', { service: 'plaidx', query: '', query_vectors });
    expect(Object.keys(vectors.body.scores)[0]).toBe('d6');
  });

  it('restricts results to a subset before scoring', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'plaidx',
      query: 'boundary layer',
      limit: 5,
      subset: 'even',
    });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(['d2', 'd4', 'd6']).toContain(id);
    expect(ids[0]).toBe('d2');
  });

  it('takes depth overrides per request', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'plaidx',
      query: 'thrust',
      limit: 10,
      ncells: 32,
      centroid_score_threshold: -1,
      ndocs: 64,
    });
    expect(status).toBe(200);
    expect(Object.keys(body.scores).slice(0, 2).sort()).toEqual(['d1', 'd6']);
  });

  it('scores text passages with exact MaxSim, the best sliding window winning', async () => {
    const long = `${'filler '.repeat(400)}supersonic shock ${'padding '.repeat(400)}`;
    const { status, body } = await post(app, '/score', {
      service: 'plaidx',
      query: 'supersonic shock',
      passages: ['supersonic shock wave', 'propeller noise', long, ''],
    });
    expect(status).toBe(200);
    const [exact, other, windowed, empty] = body.scores as number[];
    expect(exact).toBeCloseTo(2, 4);
    expect(other).toBeLessThan(1.5);
    expect(windowed).toBeCloseTo(2, 4);
    expect(empty).toBe(0);
    const windowCall = world.encoder.calls.at(-1)!;
    expect(windowCall.inputs.length).toBeGreaterThan(4);
    expect(Math.max(...windowCall.inputs.map((t) => t.split(' ').length))).toBeLessThanOrEqual(180);
  });

  it('scores pre-encoded passage vectors', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'plaidx',
      query: 'x',
      query_vectors: wordVectors('jet engines', DIM),
      passages: ['a', 'b'],
      passage_vectors: [wordVectors('jet engines burn', DIM), wordVectors('flat plate', DIM)],
    });
    expect(status).toBe(200);
    expect(body.scores[0]).toBeCloseTo(2, 4);
    expect(body.scores[1]).toBeLessThan(1);
  });

  it('serves a hybrid pipeline {bm25, plaidx}RRF%100', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: '{bm25, plaidx}RRF%100',
      query: 'flutter swept wings',
      collection: 'aero',
    });
    expect(status).toBe(200);
    expect(Object.keys(body.scores)[0]).toBe('d4');
  });

  it.each([
    ["{ query_vectors: 'nope' }", { query_vectors: 'nope' }, /query_vectors: must be an array/],
    ['{ query_vectors: [] }', { query_vectors: [] }, /query_vectors: must hold at least one/],
    [
      '{ query_vectors: [[1, 2, 3]] }',
      { query_vectors: [[1, 2, 3]] },
      /query_vectors\[0\]: has 3 numbers, expected 32/,
    ],
    [
      '{ query_vectors: [Array(DIM).fill(0).map...',
      {
        query_vectors: [
          Array(DIM)
            .fill(0)
            .map((_, i) => (i === 5 ? 'x' : 0)),
        ],
      },
      /query_vectors\[0\]\[5\]: must be a finite number/,
    ],
    [
      '{ query_vectors: Array(600).fill(Array(DIM).fill(0.1)) }',
      { query_vectors: Array(600).fill(Array(DIM).fill(0.1)) },
      /600 token vectors exceed the limit of 512/,
    ],
    ['{ limit: 0 }', { limit: 0 }, /limit: must be a positive integer/],
    ['{ limit: 2.5 }', { limit: 2.5 }, /limit/],
    ['{ ndocs: -3 }', { ndocs: -3 }, /ndocs/],
    ["{ ncells: 'many' }", { ncells: 'many' }, /ncells/],
    ["{ subset: 'nosuch' }", { subset: 'nosuch' }, /unknown subset "nosuch"/],
  ])(
    'rejects a bad search request %s with a 400 naming the field',
    async (_label, fields, message) => {
      const { status, body } = await post(app, '/search', {
        service: 'plaidx',
        query: 'q',
        limit: 3,
        ...fields,
      });
      expect(status).toBe(400);
      expect(body.code).toBe('ERR_BAD_REQUEST');
      expect(body.error).toMatch(message);
    },
  );

  it.each([
    [{ passages: [{ bytes: ['AAEC'] }] }, /passages\[0\]/],
    [{ passages: ['a'], passage_vectors: [] }, /passage_vectors: 0 matrices for 1 passages/],
    [
      { passages: ['a'], passage_vectors: [[[1, 2]]] },
      /passage_vectors\[0\]\[0\]: has 2 numbers, expected 32/,
    ],
  ])('rejects a bad score request %j with a 400', async (fields, message) => {
    const { status, body } = await post(app, '/score', {
      service: 'plaidx',
      query: 'q',
      ...fields,
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(message);
  });
});
