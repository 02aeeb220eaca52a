import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { MAX_BATCH_ITEMS } from '../../src/core/batch.js';
import { BASIC_SERVICES, testApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await testApp({ services: BASIC_SERVICES });
});
afterAll(async () => {
  await app.close();
});

async function batch(payload: unknown) {
  const reply = await app.http.inject({
    method: 'POST',
    url: '/batch',
    payload: payload as object,
  });
  return { status: reply.statusCode, body: reply.json() };
}

describe('POST /batch', () => {
  it('answers every call in order with the status and body it would have had alone', async () => {
    const { status, body } = await batch({
      requests: [
        { endpoint: 'search', body: { service: 'const', query: 'q', limit: 2 } },
        { endpoint: 'score', body: { service: 'overlap', query: 'a b', passages: ['a', 'c'] } },
        { endpoint: 'fuse', body: { service: 'RRF', scores: [{ x: 1 }, { x: 2, y: 1 }] } },
        { endpoint: 'decompose_query', body: { service: 'split', query: 'a b' } },
        { endpoint: 'search', body: { service: 'nope', query: 'q' } },
        { endpoint: 'search', body: { service: 'failing', query: 'q' } },
        { endpoint: 'score', body: { service: 'overlap', query: 'q' } },
      ],
    });
    expect(status).toBe(200);
    const statuses = (body.responses as { status: number }[]).map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200, 400, 500, 400]);
    const direct = await app.http.inject({
      method: 'POST',
      url: '/search',
      payload: { service: 'const', query: 'q', limit: 2 },
    });
    expect(body.responses[0].body.scores).toEqual(direct.json().scores);
    expect(body.responses[3].body.queries).toEqual(['a', 'b']);
    expect(body.responses[4].body).toMatchObject({ code: 'ERR_SERVICE_NOT_FOUND' });
    expect(body.responses[5].body).toMatchObject({ code: 'ERR_ENGINE' });
    expect(body.responses[6].body.error).toMatch(/passages/);
  });

  it('is advertised in /avail and /openapi.json', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.batch_endpoint).toBe('/batch');
    const openapi = (await app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(openapi.paths['/batch']).toBeDefined();
  });

  it.each([
    ['an array body', [1, 2]],
    ['no requests', {}],
    ['requests that are not an array', { requests: 'search' }],
    ['an empty batch', { requests: [] }],
    ['an unknown endpoint', { requests: [{ endpoint: 'batch', body: {} }] }],
    ['a body that is not an object', { requests: [{ endpoint: 'search', body: 'q' }] }],
    ['an item without body', { requests: [{ endpoint: 'search' }] }],
    ['an unknown key', { requests: [], extra: 1 }],
    [
      'too many calls',
      {
        requests: Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => ({
          endpoint: 'search',
          body: { service: 'const', query: 'q' },
        })),
      },
    ],
  ])('rejects %s with a 400 naming the field', async (_label, payload) => {
    const { status, body } = await batch(payload);
    expect(status).toBe(400);
    expect(body.code).toBe('ERR_BAD_REQUEST');
    expect(typeof body.error).toBe('string');
  });
});
