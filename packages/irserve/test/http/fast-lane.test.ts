/**
 * The fast lane (transports/http/fast-lane.ts) answers `POST /search`, `/pipeline` and the other
 * service calls over a real socket exactly as Fastify does: every request here is sent both ways, over the socket
 * (the lane, or Fastify for what the lane leaves to it) and through `inject` (always Fastify),
 * and the two answers must match in status, body, content type, request id and Retry-After.
 */
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { FAULT_ENGINES, HangingSearch } from '../faults/fault-engines.js';

const KEY = 'lane-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const JSON_TYPE = { 'content-type': 'application/json' };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

let app: App;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  app = await testApp(
    {
      services: [
        // No cache: the second of the two calls must not be told "cached".
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0, cache: -1 },
        { name: 'other', engine: 'ConstSearch', max_wait_time: 0, cache: -1 },
        { name: 'failing', engine: 'FailingSearch', max_wait_time: 0 },
        { name: 'hanging', engine: 'HangingSearch', timeout: 0.2, cache: -1 },
        { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0, cache: -1 },
        { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0, cache: -1 },
      ],
      body_limit: 2048,
    },
    {
      apiKey: KEY,
      engines: [...TEST_ENGINES, ...FAULT_ENGINES],
      logger: pino({ level: 'info' }, sink),
    },
  );
  await app.http.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  HangingSearch.hang = false;
  await app?.close();
});

/** `payload` POSTed over a real socket, with `headers` as given (no defaults added). */
function overSocket(url: string, payload: string, headers: Record<string, string>) {
  const { port } = app.http.server.address() as AddressInfo;
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: url, method: 'POST', headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function throughFastify(url: string, payload: string, headers: Record<string, string>) {
  const response = await app.http.inject({ method: 'POST', url, payload, headers });
  return { status: response.statusCode, headers: response.headers, body: response.body };
}

/** What must be equal between the two answers (timestamps and fresh request ids aside). */
function comparable(answer: Answer, idGiven: boolean) {
  let body: unknown = answer.body;
  try {
    // Timestamps left out wherever they are (a /batch answer holds one per item).
    body = JSON.parse(answer.body, (key, value: unknown) =>
      key === 'timestamp' ? undefined : value,
    ) as unknown;
  } catch {
    // not JSON: compared as text
  }
  return {
    status: answer.status,
    body,
    type: answer.headers['content-type'],
    retryAfter: answer.headers['retry-after'],
    id: idGiven ? answer.headers['x-request-id'] : typeof answer.headers['x-request-id'],
  };
}

/** Sends the request both ways and checks that the answers match; returns the socket's. */
async function same(url: string, payload: string, extra: Record<string, string> = {}) {
  const headers = {
    ...AUTH,
    ...JSON_TYPE,
    'content-length': String(Buffer.byteLength(payload)),
    ...extra,
  };
  const socket = await overSocket(url, payload, headers);
  const fastify = await throughFastify(url, payload, headers);
  // An id the server accepts comes back as it is; any other is replaced by a fresh one.
  const idGiven = /^[\x21-\x7e]+$/.test(extra['x-request-id'] ?? '');
  expect(comparable(socket, idGiven)).toEqual(comparable(fastify, idGiven));
  return socket;
}

const body = (value: unknown) => JSON.stringify(value);

describe('the fast lane answers as Fastify does', () => {
  it('is the server request listener in front of Fastify', () => {
    expect(app.http.server.listeners('request')[0]?.name).toBe('laneFirst');
  });

  it('a search and a pipeline, with the request id echoed', async () => {
    const searched = await same('/search', body({ service: 'const', query: 'q', limit: 2 }), {
      'x-request-id': 'lane-1',
    });
    expect(searched.status).toBe(200);
    expect(searched.headers['x-request-id']).toBe('lane-1');
    expect(searched.headers['content-type']).toBe('application/json; charset=utf-8');
    const piped = await same('/pipeline', body({ pipeline: '{const, other}RRF%2', query: 'q' }));
    expect(piped.status).toBe(200);
    expect(Object.keys((JSON.parse(piped.body) as { scores: object }).scores)).toHaveLength(2);
  });

  it.each([
    ['invalid JSON', '{"service": "const",'],
    ['a prototype key', '{"service":"const","query":"q","__proto__":{"polluted":true}}'],
    ['a constructor key', '{"service":"const","query":"q","constructor":{"prototype":{"x":1}}}'],
    ['a JSON array', '[1,2]'],
    ['null', 'null'],
    ['whitespace only', '   '],
    ['a missing query', body({ service: 'const' })],
    ['an unknown service', body({ service: 'nope', query: 'q' })],
    ['a hostile service name', body({ service: '<script>x</script>', query: 'q' })],
    ['a limit far too big', body({ service: 'const', query: 'q', limit: 1e12 })],
    ['a failing engine', body({ service: 'failing', query: 'q' })],
  ])('/search with %s', async (_label, payload) => {
    const answer = await same('/search', payload);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['an unparsable pipeline', body({ pipeline: '{const,, }', query: 'q' })],
    ['an unknown stage', body({ pipeline: 'nope >> const', query: 'q' })],
    ['no query', body({ pipeline: 'const' })],
  ])('/pipeline with %s', async (_label, payload) => {
    expect((await same('/pipeline', payload)).status).toBe(400);
  });

  const passages = ['wing lift', 'drag'];
  it.each([
    ['/query', { service: 'const', query: 'q' }],
    ['/score', { service: 'overlap', query: 'wing', passages }],
    ['/fuse', { service: 'RRF', query: 'q', scores: [{ a: 1, b: 0.5 }, { b: 2 }] }],
    ['/decompose_query', { service: 'split', query: 'wing lift drag', limit: 2 }],
    [
      '/batch',
      {
        requests: [
          { endpoint: 'search', body: { service: 'const', query: 'q' } },
          { endpoint: 'score', body: { service: 'overlap', query: 'q', passages } },
          { endpoint: 'search', body: { service: 'nope', query: 'q' } },
        ],
      },
    ],
  ])('%s', async (url, request) => {
    expect((await same(url, body(request))).status).toBe(200);
  });

  it.each([
    ['/score', { service: 'overlap', query: 'wing' }],
    ['/score', { service: 'overlap', query: 'wing', passages: 'not a list' }],
    ['/score', { service: 'const', query: 'wing', passages }],
    ['/fuse', { service: 'RRF', query: 'q', scores: 'none' }],
    ['/decompose_query', { service: 'split' }],
    ['/batch', { requests: 'all of them' }],
    ['/batch', { requests: [{ endpoint: 'delete', body: {} }] }],
  ])('%s with a bad body', async (url, request) => {
    expect((await same(url, body(request))).status).toBeGreaterThanOrEqual(400);
  });

  it.each([
    ['a bad x-request-timeout', { 'x-request-timeout': 'soon' }],
    ['a relay loop', { 'x-irserve-hops': '999' }],
    ['an unprintable request id', { 'x-request-id': 'a\tb' }],
  ])('/search with %s header', async (_label, headers) => {
    await same('/search', body({ service: 'const', query: 'q' }), headers);
  });

  it('a deadline the engine misses: 504 in bounded time', async () => {
    HangingSearch.hang = true;
    const answer = await same('/search', body({ service: 'hanging', query: 'q' }));
    HangingSearch.hang = false;
    expect(answer.status).toBe(504);
  });
});

describe('what the lane leaves to Fastify gets Fastify answer', () => {
  it.each([
    ['no token', { authorization: '' }],
    ['a wrong token', { authorization: 'Bearer wrong' }],
    ['another content type', { 'content-type': 'text/plain' }],
  ])('%s', async (_label, headers) => {
    const answer = await same('/search', body({ service: 'const', query: 'q' }), headers);
    expect(answer.status).toBeGreaterThanOrEqual(400);
  });

  it.each([
    ['a charset other than UTF-8', { 'content-type': 'application/json; charset=latin1' }],
    ['a content encoding', { 'content-encoding': 'identity' }],
  ])('%s', async (_label, headers) => {
    await same('/search', body({ service: 'const', query: 'q' }), headers);
  });

  it('a body over the limit is a 413', async () => {
    const answer = await same('/search', body({ service: 'const', query: 'q'.repeat(4000) }));
    expect(answer.status).toBe(413);
  });

  it.each(['/search?x=1', '/search/'])('%s is still a search', async (url) => {
    expect((await same(url, body({ service: 'const', query: 'q' }))).status).toBe(200);
  });

  it('a chunked body (no Content-Length)', async () => {
    const payload = body({ service: 'const', query: 'q' });
    const answer = await overSocket('/search', payload, {
      ...AUTH,
      ...JSON_TYPE,
      'transfer-encoding': 'chunked',
    });
    expect(answer.status).toBe(200);
  });
});

describe('clients that misbehave', () => {
  it('a client that leaves halfway through its body costs nothing', async () => {
    const { port } = app.http.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${KEY}\r\nContent-Length: 100\r\n\r\n{"service":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await same('/search', body({ service: 'const', query: 'after' }))).status).toBe(200);
  });

  it('one that leaves while its search runs cancels it and the server goes on', async () => {
    HangingSearch.hang = true;
    const { port } = app.http.server.address() as AddressInfo;
    const payload = body({ service: 'hanging', query: 'left' });
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/search',
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE, 'content-length': String(payload.length) },
    });
    request.on('error', () => undefined);
    const seen = HangingSearch.signals.length;
    request.end(payload);
    await vi.waitFor(() => expect(HangingSearch.signals.length).toBeGreaterThan(seen));
    const signal = HangingSearch.signals.at(-1)!;
    request.destroy();
    // Well before the service's 0.2-s timeout: the client's leaving aborts the engine's batch.
    await vi.waitFor(() => expect(signal.aborted).toBe(true), { timeout: 150 });
    expect(signal.reason).toMatchObject({ code: 'ERR_CLIENT_CLOSED' });
    HangingSearch.hang = false;
    expect((await same('/search', body({ service: 'const', query: 'next' }))).status).toBe(200);
  });
});

describe('the lane keeps the request log and the metrics', () => {
  it('logs one request line and counts the request', async () => {
    await same('/search', body({ service: 'const', query: 'logged' }), {
      'x-request-id': 'lane-logged',
    });
    const lines = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.reqId === 'lane-logged' && line.msg === 'request');
    // One line from the lane (socket), one from Fastify (inject), alike but for the time.
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toMatchObject({ method: 'POST', url: '/search', status: 200 });
    const metrics = await app.http.inject({ method: 'GET', url: '/metrics', headers: AUTH });
    expect(metrics.body).toMatch(
      /irserve_requests_total\{transport="http",route="\/pipeline",service="",status="200"\} \d+/,
    );
    expect(metrics.body).toMatch(
      /irserve_requests_total\{transport="http",route="\/search",service="const",status="200"\} \d+/,
    );
  });
});
