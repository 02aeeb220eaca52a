import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { urlForLog } from '../../src/transports/http/request-log.js';
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

  it.each(['/search', '/avail', '/secret'])('OPTIONS %s without a token is a 401', async (path) => {
    const response = await call('OPTIONS', path, undefined);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'ERR_UNAUTHORIZED' });
  });

  it.each([
    ['/search', 'POST, OPTIONS'],
    ['/avail', 'GET, OPTIONS'],
  ])('OPTIONS %s with the token: 204 and Allow: %s', async (path, allow) => {
    const response = await call('OPTIONS', path, undefined, `Bearer ${KEY}`);
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe(allow);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.text()).toBe('');
  });

  it('OPTIONS of an unknown path with the token is a 404; another method on a route a 405', async () => {
    expect((await call('OPTIONS', '/secret', undefined, `Bearer ${KEY}`)).status).toBe(404);
    const wrong = await call('GET', '/search', undefined, `Bearer ${KEY}`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
  });
});

describe('an API key in the URL', () => {
  const lines: Record<string, unknown>[] = [];
  let logged: App;
  let loggedBase: string;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    logged = await testApp(
      { services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0 }] },
      { apiKey: KEY, logger: pino({ level: 'debug' }, sink) },
    );
    loggedBase = await logged.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await logged?.close();
  });

  it.each([
    ['/avail?api_key=KEY', '/avail?api_key=[REDACTED]'],
    ['/health?service=const&token=KEY', '/health?service=const&token=[REDACTED]'],
    ['/avail?k=KEY', '/avail?k=[REDACTED]'],
    ['/avail?Access_Token=anything-else&x=1', '/avail?Access_Token=[REDACTED]&x=1'],
    ['/nowhere/KEY?key=KEY', '/nowhere/[REDACTED]?key=[REDACTED]'],
  ])('%s is logged as %s', async (url, shown) => {
    const id = `url-${lines.length}`;
    await fetch(loggedBase + url.replaceAll('KEY', KEY), {
      headers: { authorization: `Bearer ${KEY}`, 'x-request-id': id },
    });
    const mine = lines.filter((line) => line.reqId === id);
    expect(mine.find((line) => line.msg === 'request')).toMatchObject({ url: shown });
    expect(JSON.stringify(mine)).not.toContain(KEY);
  });

  it('a 404 or 405 message names the path without the query string', async () => {
    const answer = await fetch(`${loggedBase}/nowhere?api_key=${KEY}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(await answer.json()).toMatchObject({ error: 'no route GET /nowhere' });
  });
});

describe('urlForLog', () => {
  it('leaves a URL without secrets as it is', () => {
    expect(urlForLog('/search', 'a-long-key')).toBe('/search');
    expect(urlForLog('/health?service=bm25', undefined)).toBe('/health?service=bm25');
  });

  it('redacts percent-encoded names and keys, and ignores a key of a few characters', () => {
    expect(urlForLog('/x?api%5Fkey=v', undefined)).toBe('/x?api%5Fkey=[REDACTED]');
    expect(urlForLog('/x?q=a%2Fb%2Bc', 'a/b+c')).toBe('/x?q=[REDACTED]');
    expect(urlForLog('/x?q=abc', 'abc')).toBe('/x?q=abc');
    expect(urlForLog('/x?%zz=1', undefined)).toBe('/x?%zz=1');
  });
});
