import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { SCORES_BEST_FIRST, markScoresBestFirst } from '../../src/core/envelope.js';
import { createBodySerializer, serializeBody } from '../../src/transports/http/serialize.js';
import { testApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => {
  await app.close();
});

/** The ids of a response's `scores`, in the order of the JSON text. */
function idsInTextOrder(text: string): string[] {
  const scores = text.slice(text.indexOf('"scores":{') + '"scores":{'.length);
  return [...scores.slice(0, scores.indexOf('}')).matchAll(/"([^"]*)":/g)].map((m) => m[1]!);
}

describe('score maps on the wire', () => {
  it('list integer-like ids best first, as RoutIR does (not in ascending id order)', async () => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/fuse',
      payload: { service: 'ScoreFusion', query: 'q', scores: [{ '51': 1, '184': 3, doc: 2 }] },
    });
    expect(response.statusCode).toBe(200);
    expect(idsInTextOrder(response.body)).toEqual(['184', 'doc', '51']);
    expect(response.json().scores).toEqual({ '51': 1, '184': 3, doc: 2 });
  });

  it('serializes like JSON.stringify otherwise', () => {
    const body = { a: 1, skip: undefined, scores: [0.5, 0.25], nested: { x: [1, 'y'] } };
    expect(serializeBody(body)).toBe(JSON.stringify(body));
    expect(serializeBody({ error: 'e', code: 'ERR_X' })).toBe('{"error":"e","code":"ERR_X"}');
    expect(serializeBody(null)).toBe('null');
    const envelope = { cached: false, scores: { '2': 1, '10': 1, b: Number.NaN }, note: undefined };
    expect(serializeBody(envelope)).toBe('{"cached":false,"scores":{"2":1,"10":1,"b":null}}');
  });

  it('keeps a map already written best first as it is, and reorders one that is not', () => {
    const ranked = { service: 's', scores: { b: 3, a: 2, c: 2, z: -1 }, timestamp: 1 };
    expect(serializeBody(ranked)).toBe(JSON.stringify(ranked));
    const unranked = { scores: { a: 1, b: 3, c: 2 } };
    expect(serializeBody(unranked)).toBe('{"scores":{"b":3,"c":2,"a":1}}');
    const infinite = { scores: { a: Infinity, b: 1, c: -Infinity } };
    expect(serializeBody(infinite)).toBe(JSON.stringify(infinite));
    expect(serializeBody({ scores: { a: 'x', b: 1 } })).toBe('{"scores":{"b":1,"a":"x"}}');
    expect(serializeBody({ scores: {} })).toBe('{"scores":{}}');
  });

  it('writes an envelope marked best first as it is, the mark itself invisible', () => {
    const body = { query: 'q', scores: { b: 3, a: 2, c: 1 }, service: 's' };
    const marked = { ...body };
    markScoresBestFirst(marked);
    expect(serializeBody(marked)).toBe(JSON.stringify(body));
    expect(marked).toEqual(body);
    expect(Object.keys(marked)).toEqual(Object.keys(body));
    expect({ ...marked }).not.toHaveProperty([SCORES_BEST_FIRST as unknown as string]);
    expect(SCORES_BEST_FIRST in { ...marked }).toBe(false);
  });

  it("writes a cache hit's score map once, and the answer as serializeBody does", () => {
    const serialize = createBodySerializer();
    const hit = (scores: object, extra: object = {}) => ({
      cached: true,
      processed: true,
      query: 'q "quoted"',
      scores,
      service: 'bm25',
      timestamp: 1732380000.123456,
      ...extra,
    });
    const shared = { '51': 1.25, '184': 3.5, doc: 2 };
    const first = serialize(hit(shared));
    expect(first).toBe(serializeBody(hit(shared)));
    expect(JSON.parse(first)).toEqual(hit(shared));
    expect(idsInTextOrder(first)).toEqual(['184', 'doc', '51']);
    // The same map again (a later hit) gives the same text; another map its own.
    expect(serialize({ ...hit(shared), query: 'other' })).toBe(
      serializeBody({ ...hit(shared), query: 'other' }),
    );
    const other = { x: 1 };
    expect(serialize(hit(other))).toBe(serializeBody(hit(other)));
    // Any other shape, or a miss, goes the general way.
    for (const payload of [
      hit(shared, { meta: { n_passages: 1 } }),
      { ...hit(shared), cached: false },
      { scores: shared, cached: true },
      hit([1, 2]),
      hit(shared, { timestamp: Number.NaN }),
      hit(shared, { query: undefined }),
      null,
    ]) {
      expect(serialize(payload)).toBe(serializeBody(payload));
    }
  });
});
