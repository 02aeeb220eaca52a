/**
 * The HTTP request path over real sockets (what `inject` skips: Node's HTTP parser, keep-alive,
 * a client that leaves): service calls and `/pipeline` answer with their status, error code,
 * content type, request id and Retry-After; bad bodies and headers get irserve's errors; the
 * request log line and the metrics count each request once.
 */
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { FAULT_ENGINES, HangingSearch } from '../faults/fault-engines.js';

const KEY = 'socket-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const JSON_TYPE = { 'content-type': 'application/json' };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
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

const port = () => (app.http.server.address() as AddressInfo).port;

/** `payload` POSTed over a socket of its own, with `headers` as given (no defaults added). */
function overSocket(url: string, payload: string, headers: Record<string, string>) {
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: port(), path: url, method: 'POST', headers },
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

/** POSTs JSON with the token, the content type and a length, plus `extra` headers. */
function post(url: string, payload: string, extra: Record<string, string> = {}) {
  const length = { 'content-length': String(Buffer.byteLength(payload)) };
  return overSocket(url, payload, { ...AUTH, ...JSON_TYPE, ...length, ...extra });
}

const codeOf = (answer: Answer) => (JSON.parse(answer.body) as { code?: string }).code;
const body = (value: unknown) => JSON.stringify(value);

describe('service calls and /pipeline over a socket', () => {
  it('a search and a pipeline, with the request id echoed', async () => {
    const searched = await post('/search', body({ service: 'const', query: 'q', limit: 2 }), {
      'x-request-id': 'socket-1',
    });
    expect(searched.status).toBe(200);
    expect(searched.headers['x-request-id']).toBe('socket-1');
    expect(searched.headers['content-type']).toBe('application/json; charset=utf-8');
    const piped = await post('/pipeline', body({ pipeline: '{const, other}RRF%2', query: 'q' }));
    expect(piped.status).toBe(200);
    expect(Object.keys((JSON.parse(piped.body) as { scores: object }).scores)).toHaveLength(2);
    expect(piped.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['invalid JSON', '{"service": "const",', 400, 'ERR_BAD_REQUEST'],
    [
      'a prototype key',
      '{"service":"const","query":"q","__proto__":{"polluted":true}}',
      400,
      'ERR_BAD_REQUEST',
    ],
    [
      'a constructor key',
      '{"service":"const","query":"q","constructor":{"prototype":{"x":1}}}',
      400,
      'ERR_BAD_REQUEST',
    ],
    ['a JSON array', '[1,2]', 400, 'ERR_BAD_REQUEST'],
    ['null', 'null', 400, 'ERR_BAD_REQUEST'],
    ['whitespace only', '   ', 400, 'ERR_BAD_REQUEST'],
    ['a missing query', body({ service: 'const' }), 400, 'ERR_BAD_REQUEST'],
    ['an unknown service', body({ service: 'nope', query: 'q' }), 400, 'ERR_SERVICE_NOT_FOUND'],
    [
      'a hostile service name',
      body({ service: '<script>x</script>', query: 'q' }),
      400,
      'ERR_SERVICE_NOT_FOUND',
    ],
    [
      'a limit far too big',
      body({ service: 'const', query: 'q', limit: 1e12 }),
      400,
      'ERR_BAD_REQUEST',
    ],
    ['a failing engine', body({ service: 'failing', query: 'q' }), 500, 'ERR_ENGINE'],
  ])('/search with %s: %i %s', async (_label, payload, status, code) => {
    const answer = await post('/search', payload);
    expect([answer.status, codeOf(answer)]).toEqual([status, code]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['an unparsable pipeline', body({ pipeline: '{const,, }', query: 'q' })],
    ['an unknown stage', body({ pipeline: 'nope >> const', query: 'q' })],
    ['no query', body({ pipeline: 'const' })],
  ])('/pipeline with %s: 400', async (_label, payload) => {
    expect((await post('/pipeline', payload)).status).toBe(400);
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
  ])('%s: 200', async (url, request) => {
    expect((await post(url, body(request))).status).toBe(200);
  });

  it.each([
    ['/score', { service: 'overlap', query: 'wing' }],
    ['/score', { service: 'overlap', query: 'wing', passages: 'not a list' }],
    ['/score', { service: 'const', query: 'wing', passages }],
    ['/fuse', { service: 'RRF', query: 'q', scores: 'none' }],
    ['/decompose_query', { service: 'split' }],
    ['/batch', { requests: 'all of them' }],
    ['/batch', { requests: [{ endpoint: 'delete', body: {} }] }],
  ])('%s with a bad body: 400', async (url, request) => {
    const answer = await post(url, body(request));
    expect(answer.status).toBe(400);
    expect(codeOf(answer)).toMatch(/^ERR_/);
  });

  it.each([
    ['a bad x-request-timeout', { 'x-request-timeout': 'soon' }, 400],
    ['a relay loop', { 'x-irserve-hops': '999' }, 400],
    ['an unprintable request id (replaced)', { 'x-request-id': 'a\tb' }, 200],
  ])('/search with %s header: %i', async (_label, headers, status) => {
    const answer = await post('/search', body({ service: 'const', query: 'q' }), headers);
    expect(answer.status).toBe(status);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a deadline the engine misses: 504 in bounded time', async () => {
    HangingSearch.hang = true;
    const answer = await post('/search', body({ service: 'hanging', query: 'q' }));
    HangingSearch.hang = false;
    expect([answer.status, codeOf(answer)]).toEqual([504, 'ERR_TIMEOUT']);
  });
});

describe('requests refused before their body is read', () => {
  it.each([
    ['no token', { authorization: '' }, 401, 'ERR_UNAUTHORIZED'],
    ['a wrong token', { authorization: 'Bearer wrong' }, 401, 'ERR_UNAUTHORIZED'],
    ['another content type', { 'content-type': 'text/plain' }, 415, 'ERR_UNSUPPORTED_MEDIA_TYPE'],
  ])('%s: %i %s', async (_label, headers, status, code) => {
    const answer = await post('/search', body({ service: 'const', query: 'q' }), headers);
    expect([answer.status, codeOf(answer)]).toEqual([status, code]);
  });

  it('a body over the limit is a 413', async () => {
    const answer = await post('/search', body({ service: 'const', query: 'q'.repeat(4000) }));
    expect([answer.status, codeOf(answer)]).toEqual([413, 'ERR_BODY_TOO_LARGE']);
  });
});

describe('what is accepted as it comes', () => {
  it.each([
    ['a content encoding of identity', { 'content-encoding': 'identity' }],
    // JSON is UTF-8 (RFC 8259); the body is read as UTF-8 whatever the charset says.
    ['a charset other than UTF-8', { 'content-type': 'application/json; charset=latin1' }],
  ])('%s', async (_label, headers) => {
    const answer = await post('/search', body({ service: 'const', query: 'q' }), headers);
    expect(answer.status).toBe(200);
  });

  it.each(['/search?x=1', '/search/'])('%s is still a search', async (url) => {
    expect((await post(url, body({ service: 'const', query: 'q' }))).status).toBe(200);
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

/** A raw connection to the server and everything it receives until it closes. */
async function rawConnection(): Promise<{
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}> {
  const socket = connect(port(), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

/** One HTTP/1.1 POST of `payload` to `url` as raw bytes, with the token. */
const rawPost = (url: string, payload: string) =>
  `POST ${url} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
  `Authorization: Bearer ${KEY}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;

describe('keep-alive and pipelined requests', () => {
  it('after a 400 for a body that does not parse, the connection closes: a request pipelined behind it is not answered', async () => {
    const { socket, received, closed } = await rawConnection();
    socket.write(
      rawPost('/search', '{"service": "const",') +
        rawPost('/search', body({ service: 'const', query: 'next' })),
    );
    await closed;
    const statuses = [...received().matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    expect(statuses).toEqual(['400']);
    expect(received()).toMatch(/^connection: close\r$/im);
    expect(received()).toContain('ERR_BAD_REQUEST');
  });

  it('after a 400 for a body that parses but is wrong, the connection stays open for the next', async () => {
    const { socket, received } = await rawConnection();
    socket.write(
      rawPost('/search', body({ service: 'const' })) +
        rawPost('/search', body({ service: 'const', query: 'next' })),
    );
    await vi.waitFor(() =>
      expect([...received().matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual([
        '400',
        '200',
      ]),
    );
    socket.destroy();
  });
});

describe('clients that misbehave', () => {
  it('a client that leaves halfway through its body costs nothing', async () => {
    const { socket } = await rawConnection();
    socket.write(
      'POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${KEY}\r\nContent-Length: 100\r\n\r\n{"service":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await post('/search', body({ service: 'const', query: 'after' }))).status).toBe(200);
  });

  it('one that leaves while its search runs cancels it and the server goes on', async () => {
    HangingSearch.hang = true;
    const payload = body({ service: 'hanging', query: 'left' });
    const request = httpRequest({
      host: '127.0.0.1',
      port: port(),
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
    expect((await post('/search', body({ service: 'const', query: 'next' }))).status).toBe(200);
  });
});

describe('the request log and the metrics', () => {
  it('one request line per request, and the request counted', async () => {
    await post('/search', body({ service: 'const', query: 'logged' }), {
      'x-request-id': 'socket-logged',
    });
    const lines = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.reqId === 'socket-logged' && line.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', url: '/search', status: 200 });
    expect(typeof lines[0]!.ms).toBe('number');
    const metrics = await app.http.inject({ method: 'GET', url: '/metrics', headers: AUTH });
    expect(metrics.body).toMatch(
      /irserve_requests_total\{transport="http",route="\/pipeline",service="",status="200"\} \d+/,
    );
    expect(metrics.body).toMatch(
      /irserve_requests_total\{transport="http",route="\/search",service="const",status="200"\} \d+/,
    );
  });
});
