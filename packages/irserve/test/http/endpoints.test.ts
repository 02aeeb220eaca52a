import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { RecordingSearch } from '../helpers/engines.js';

let app: App;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => {
  await app.close();
});

const post = (url: string, payload: unknown) =>
  app.http.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });

describe('GET /ping and /avail', () => {
  it('answers pong', async () => {
    const response = await app.http.inject({ method: 'GET', url: '/ping' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'pong' });
  });

  it('lists services by role, built-in fusion rules included', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.search).toEqual(['const', 'const_nocache', 'recording', 'failing', 'wrong']);
    expect(avail.score).toEqual(['overlap', 'bytesize']);
    expect(avail.fuse).toEqual(expect.arrayContaining(['RRF', 'ScoreFusion']));
    expect(avail.decompose_query).toEqual(['split']);
    expect(avail.collection).toEqual({});
    expect(avail.score_view_kinds).toEqual({ overlap: 'text', bytesize: 'bytes' });
  });
});

describe('POST /search', () => {
  it('returns the specification envelope', async () => {
    const response = await post('/search', {
      service: 'const',
      query: 'neural retrieval',
      limit: 3,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      cached: false,
      processed: true,
      query: 'neural retrieval',
      scores: { doc0: 3, doc1: 2, doc2: 1 },
      service: 'const',
      timestamp: expect.any(Number),
    });
    expect(Math.abs(body.timestamp - Date.now() / 1000)).toBeLessThan(60);
  });

  it('serves the same request from the cache with cached: true and the original timestamp', async () => {
    const first = (await post('/search', { service: 'const', query: 'cache me', limit: 4 })).json();
    const second = (
      await post('/search', { service: 'const', query: 'cache me', limit: 4 })
    ).json();
    expect(second).toEqual({ ...first, cached: true });
  });

  it('does not cache when cache is -1', async () => {
    await post('/search', { service: 'const_nocache', query: 'x', limit: 2 });
    expect(
      (await post('/search', { service: 'const_nocache', query: 'x', limit: 2 })).json().cached,
    ).toBe(false);
  });

  it('defaults limit to 1000', async () => {
    RecordingSearch.batches = [];
    await post('/search', { service: 'recording', query: 'defaults' });
    expect(RecordingSearch.batches.flat()[0]).toMatchObject({ query: 'defaults', limit: 1000 });
  });

  it('passes every extra request field to the engine', async () => {
    RecordingSearch.batches = [];
    await post('/search', {
      service: 'recording',
      query: 'extras',
      limit: 5,
      subset: 's1',
      instruction: 'find',
      nested: { a: [1] },
    });
    expect(RecordingSearch.batches.flat()[0]).toEqual({
      query: 'extras',
      limit: 5,
      subset: 's1',
      instruction: 'find',
      nested: { a: [1] },
    });
  });

  it('gathers concurrent requests into one engine batch', async () => {
    RecordingSearch.batches = [];
    await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((query) =>
        post('/search', { service: 'recording', query, limit: 1 }),
      ),
    );
    expect(RecordingSearch.batches).toHaveLength(1);
    expect(RecordingSearch.batches[0]).toHaveLength(5);
  });

  it('answers the deprecated /query route like /search', async () => {
    expect(
      (await post('/query', { service: 'const', query: 'q', limit: 1 })).json().scores,
    ).toEqual({ doc0: 1 });
  });
});

describe('POST /score', () => {
  it('returns one score per passage in request order', async () => {
    const body = (
      await post('/score', {
        service: 'overlap',
        query: 'Neural retrieval models',
        passages: ['neural retrieval is fun', 'a passage about rivers', ''],
      })
    ).json();
    expect(body).toMatchObject({
      scores: [2, 0, 0],
      service: 'overlap',
      cached: false,
      processed: true,
      meta: { n_passages: 3 },
    });
  });

  it('handles an empty passage list', async () => {
    expect(
      (await post('/score', { service: 'overlap', query: 'q', passages: [] })).json().scores,
    ).toEqual([]);
  });

  it('does not return stale scores when the passages change', async () => {
    const a = (await post('/score', { service: 'overlap', query: 'x y', passages: ['x'] })).json();
    const b = (
      await post('/score', { service: 'overlap', query: 'x y', passages: ['x y', 'z'] })
    ).json();
    expect(a.scores).toEqual([1]);
    expect(b).toMatchObject({ scores: [2, 0], cached: false });
  });

  it('accepts base64 parts for a bytes scorer and rejects text for it', async () => {
    const parts = [Buffer.from('abc').toString('base64'), Buffer.from('de').toString('base64')];
    expect(
      (await post('/score', { service: 'bytesize', query: 'q', passages: [parts] })).json().scores,
    ).toEqual([5]);
    const wrong = await post('/score', { service: 'bytesize', query: 'q', passages: ['text'] });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/passages\[0\].*bytes/);
  });
});

describe('POST /fuse and /decompose_query', () => {
  it('fuses with RRF (k 60, ranks from 1)', async () => {
    const body = (
      await post('/fuse', {
        service: 'RRF',
        query: 'q',
        scores: [
          { a: 3, b: 2 },
          { b: 9, c: 1 },
        ],
      })
    ).json();
    expect(body.service).toBe('RRF');
    expect(body.scores.b).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(body.scores.a).toBeCloseTo(1 / 61, 12);
    expect(body.scores.c).toBeCloseTo(1 / 62, 12);
  });

  it('honours rrf_k', async () => {
    const body = (
      await post('/fuse', { service: 'RRF', query: 'q', scores: [{ a: 1 }], rrf_k: 0 })
    ).json();
    expect(body.scores.a).toBeCloseTo(1, 12);
  });

  it('fuses with ScoreFusion (sum of raw scores)', async () => {
    const body = (
      await post('/fuse', {
        service: 'ScoreFusion',
        query: 'q',
        scores: [{ a: 3, b: 2 }, { b: 9 }],
      })
    ).json();
    expect(body.scores).toEqual({ a: 3, b: 11 });
  });

  it('decomposes a query, at most limit sub-queries', async () => {
    const body = (
      await post('/decompose_query', { service: 'split', query: 'a b c d', limit: 2 })
    ).json();
    expect(body).toMatchObject({
      queries: ['a', 'b'],
      service: 'split',
      query: 'a b c d',
      processed: true,
    });
  });
});

describe('engine failures', () => {
  it('an engine exception is a 500 with ERR_ENGINE, never a 200', async () => {
    const response = await post('/search', { service: 'failing', query: 'q', limit: 1 });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      error: 'service "failing" failed: model exploded',
      code: 'ERR_ENGINE',
    });
  });

  it('a result of the wrong shape is a 500 with ERR_ENGINE', async () => {
    const response = await post('/search', { service: 'wrong', query: 'q', limit: 1 });
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toMatch(/returned 0 results for a batch of 1/);
  });
});
