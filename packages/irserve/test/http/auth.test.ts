import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

const KEY = 'test-key-0123456789';
let app: App;
let base: string;
beforeAll(async () => {
  app = await testApp(
    {
      services: [
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0.001 },
        { name: 'overlap', engine: 'OverlapScore' },
      ],
    },
    { apiKey: KEY },
  );
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
});

const ROUTES: [string, string, unknown][] = [
  ['GET', '/avail', undefined],
  ['GET', '/openapi.json', undefined],
  ['POST', '/search', { service: 'const', query: 'q' }],
  ['POST', '/query', { service: 'const', query: 'q' }],
  ['POST', '/score', { service: 'overlap', query: 'q', passages: ['q'] }],
  ['POST', '/fuse', { service: 'RRF', query: 'q', scores: [{ a: 1 }] }],
  ['POST', '/decompose_query', { service: 'x', query: 'q' }],
  ['POST', '/pipeline', { pipeline: 'const', query: 'q' }],
  ['POST', '/content', { collection: 'c', id: '1' }],
  [
    'POST',
    '/batch',
    { requests: [{ endpoint: 'search', body: { service: 'const', query: 'q' } }] },
  ],
];

async function call(method: string, path: string, body: unknown, authorization?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (authorization !== undefined) headers.authorization = authorization;
  return fetch(base + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

describe('bearer authentication over a real socket', () => {
  it('/ping needs no credentials', async () => {
    const response = await call('GET', '/ping', undefined);
    expect(response.status).toBe(200);
  });

  it.each(ROUTES)('%s %s without a token is a JSON 401', async (method, path, body) => {
    const response = await call(method, path, body);
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toMatchObject({ code: 'ERR_UNAUTHORIZED' });
  });

  it.each(ROUTES)('%s %s with a wrong token is a 401', async (method, path, body) => {
    expect((await call(method, path, body, 'Bearer wrong')).status).toBe(401);
  });

  it.each(ROUTES)('%s %s with the token is not a 401', async (method, path, body) => {
    expect((await call(method, path, body, `Bearer ${KEY}`)).status).not.toBe(401);
  });

  it('an unknown path without a token is a 401, not a route listing', async () => {
    expect((await call('GET', '/secret', undefined)).status).toBe(401);
  });

  it('CORS preflight (OPTIONS) is not authenticated', async () => {
    const response = await fetch(base + '/search', { method: 'OPTIONS' });
    expect(response.status).not.toBe(401);
  });
});
