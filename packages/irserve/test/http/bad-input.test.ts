import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await testApp({
    services: [
      { name: 'const', engine: 'ConstSearch', max_wait_time: 0.001 },
      { name: 'overlap', engine: 'OverlapScore' },
    ],
    body_limit: 4096,
  });
});
afterAll(async () => {
  await app.close();
});

const raw = (
  url: string,
  payload: string,
  contentType = 'application/json',
  method: 'POST' | 'GET' = 'POST',
) => app.http.inject({ method, url, payload, headers: { 'content-type': contentType } });

describe('malformed, missing, oversized and hostile input', () => {
  it.each([
    ['missing service', { query: 'q' }, /service/],
    ['service of the wrong type', { service: 5, query: 'q' }, /service/],
    ['empty service', { service: '', query: 'q' }, /service/],
    ['missing query', { service: 'const' }, /query/],
    ['query as a number', { service: 'const', query: 1 }, /query/],
    ['limit as a string', { service: 'const', query: 'q', limit: '5' }, /limit/],
    ['limit zero', { service: 'const', query: 'q', limit: 0 }, /limit/],
    ['negative limit', { service: 'const', query: 'q', limit: -3 }, /limit/],
    ['fractional limit', { service: 'const', query: 'q', limit: 2.5 }, /limit/],
    ['limit above max_limit', { service: 'const', query: 'q', limit: 1e9 }, /limit.*max_limit/],
    ['subset as a number', { service: 'const', query: 'q', subset: 3 }, /subset/],
  ])('/search with %s is a 400 naming the field', async (_label, body, field) => {
    const response = await raw('/search', JSON.stringify(body));
    expect(response.statusCode).toBe(400);
    const json = response.json();
    expect(json.code).toBe('ERR_BAD_REQUEST');
    expect(json.error).toMatch(field);
  });

  it.each([
    ['passages missing', { service: 'overlap', query: 'q' }],
    ['passages not an array', { service: 'overlap', query: 'q', passages: 'text' }],
    ['a passage that is a number', { service: 'overlap', query: 'q', passages: ['a', 3] }],
    ['bytes parts that are not base64', { service: 'overlap', query: 'q', passages: [['***']] }],
  ])('/score with %s is a 400', async (_label, body) => {
    const response = await raw('/score', JSON.stringify(body));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatch(/passages/);
  });

  it.each([
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"search"'],
    ['null', 'null'],
    ['an empty object', '{}'],
  ])('a body that is %s is a 400', async (_label, payload) => {
    const response = await raw('/search', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('ERR_BAD_REQUEST');
  });

  it('invalid JSON is a 400 saying so', async () => {
    const response = await raw('/search', '{"service": "const",');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatch(/not valid JSON/);
  });

  it('an empty body is a 400', async () => {
    const response = await raw('/search', '');
    expect(response.statusCode).toBe(400);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded'])(
    'content type %s is a 415',
    async (type) => {
      const response = await raw('/search', '{"service":"const","query":"q"}', type);
      expect(response.statusCode).toBe(415);
      expect(response.json().code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
    },
  );

  it('a body over body_limit is a 413', async () => {
    const response = await raw(
      '/search',
      JSON.stringify({ service: 'const', query: 'x'.repeat(10_000) }),
    );
    expect(response.statusCode).toBe(413);
    expect(response.json().code).toBe('ERR_BODY_TOO_LARGE');
  });

  it('prototype-pollution keys do not reach Object.prototype', async () => {
    const response = await raw(
      '/search',
      '{"service":"const","query":"q","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    );
    expect([200, 400]).toContain(response.statusCode);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an unknown service is a 400 with ERR_SERVICE_NOT_FOUND', async () => {
    const response = await raw('/search', JSON.stringify({ service: 'nope', query: 'q' }));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'ERR_SERVICE_NOT_FOUND',
      error: "Service 'nope' not found or does not support search; search services: const",
    });
  });

  it('an unknown service is answered with the closest name and the services of its role', async () => {
    const search = await raw('/search', JSON.stringify({ service: 'cnst', query: 'q' }));
    expect(search.json().error).toBe(
      "Service 'cnst' not found or does not support search (did you mean 'const'?); search services: const",
    );
    const pipeline = await raw('/pipeline', JSON.stringify({ pipeline: 'cnst', query: 'q' }));
    expect(pipeline.statusCode).toBe(400);
    expect(pipeline.json().error).toMatch(
      /no search service is named 'cnst' .*\(did you mean 'const'\?\); search services: const$/,
    );
    const health = await app.http.inject({ method: 'GET', url: '/health?service=overlpa' });
    expect(health.statusCode).toBe(400);
    expect(health.json().error).toMatch(
      /^service "overlpa" is not served here \(did you mean 'overlap'\?\); services: const, overlap, RRF/,
    );
  });

  it('a service of the wrong role is a 400 that says which role it has', async () => {
    const response = await raw('/search', JSON.stringify({ service: 'overlap', query: 'q' }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe(
      "Service 'overlap' not found or does not support search ('overlap' is a score service); search services: const",
    );
  });

  it('an unknown path is a JSON 404', async () => {
    const response = await raw('/nope', '{}');
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('ERR_NOT_FOUND');
  });

  it('GET on a POST route is a JSON 405 with Allow', async () => {
    const response = await app.http.inject({ method: 'GET', url: '/search' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST, OPTIONS');
  });

  it('serves an OpenAPI document', async () => {
    const doc = (await app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/search', '/score', '/pipeline', '/content']),
    );
  });

  it('echoes or generates x-request-id', async () => {
    const given = await app.http.inject({
      method: 'GET',
      url: '/ping',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const generated = await app.http.inject({ method: 'GET', url: '/ping' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('replaces a request id that is too long, empty or not printable ASCII (as gRPC does)', async () => {
    const kept = 'a'.repeat(200);
    for (const [given, expected] of [
      [kept, kept],
      ['a'.repeat(201), /^[0-9a-f-]{36}$/],
      ['two words', /^[0-9a-f-]{36}$/],
      ['caf\u00e9', /^[0-9a-f-]{36}$/],
    ] as const) {
      const response = await app.http.inject({
        method: 'GET',
        url: '/ping',
        headers: { 'x-request-id': given },
      });
      expect(response.headers['x-request-id']).toMatch(expected);
    }
  });

  it('sends x-request-id on errors too: unknown route, wrong method, bad body, bad field', async () => {
    const answers = await Promise.all([
      app.http.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'r1' } }),
      app.http.inject({ method: 'GET', url: '/search', headers: { 'x-request-id': 'r2' } }),
      app.http.inject({
        method: 'POST',
        url: '/search',
        headers: { 'x-request-id': 'r3', 'content-type': 'application/json' },
        payload: '{"query":',
      }),
      app.http.inject({
        method: 'POST',
        url: '/search',
        headers: { 'x-request-id': 'r4' },
        payload: { service: 'no-such-service', query: 'q' },
      }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([404, 405, 400, 400]);
    expect(answers.map((a) => a.headers['x-request-id'])).toEqual(['r1', 'r2', 'r3', 'r4']);
  });
});
