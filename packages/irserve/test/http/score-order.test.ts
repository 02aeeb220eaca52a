import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { serializeBody } from '../../src/transports/http/serialize.js';
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
});
