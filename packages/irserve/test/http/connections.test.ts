/**
 * Connections that would otherwise be held forever: a request whose headers or body stop
 * arriving is answered 408 and closed after `request_timeout`, a connection that sends nothing
 * is closed too, a slow but steady client is served, and past `max_connections` a new
 * connection is closed as it arrives. Real sockets throughout.
 */
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { BASIC_SERVICES, testApp } from '../helpers/app.js';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The app's log lines, parsed. */
let logLines: Record<string, unknown>[] = [];

async function serve(config: Record<string, unknown>): Promise<number> {
  logLines = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  app = await testApp(
    { services: BASIC_SERVICES, ...config },
    { logger: pino({ level: 'warn' }, sink) },
  );
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  return (app.http.server.address() as AddressInfo).port;
}

interface Connection {
  socket: Socket;
  /** Everything received so far. */
  received: () => string;
  /** Resolves with the milliseconds from connect to close. */
  closed: Promise<number>;
}

async function open(port: number): Promise<Connection> {
  const socket = connect(port, '127.0.0.1');
  const started = performance.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(performance.now() - started)),
  );
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => text, closed };
}

const HEAD = (length: number) =>
  'POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${length}\r\n\r\n`;

describe('request_timeout', () => {
  it('a body that stops halfway is answered 408 and closed; one that trickles in is served', async () => {
    const port = await serve({ request_timeout: 1 });
    const body = JSON.stringify({ service: 'const', query: 'slow but honest' });
    const stalled = await open(port);
    stalled.socket.write(HEAD(body.length) + body.slice(0, 10));
    const headersOnly = await open(port);
    headersOnly.socket.write('POST /search HTTP/1.1\r\nHost: x\r\n');
    const silent = await open(port);
    // The honest client sends its body in five pieces over 0.6 s, inside the second it has.
    const honest = await open(port);
    honest.socket.write(HEAD(body.length));
    const step = Math.ceil(body.length / 5);
    for (let at = 0; at < body.length; at += step) {
      await new Promise((resolve) => setTimeout(resolve, 120));
      honest.socket.write(body.slice(at, at + step));
    }
    const closedAfter = await Promise.all([stalled.closed, headersOnly.closed, silent.closed]);
    // Node checks the connections every second: closed between 1 and about 2 s.
    for (const ms of closedAfter) {
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(4000);
    }
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(stalled.received()).toContain('"code":"ERR_REQUEST_TIMEOUT"');
    expect(stalled.received()).toMatch(/^x-content-type-options: nosniff\r$/im);
    expect(headersOnly.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(honest.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(honest.received()).toContain('slow but honest');
    honest.socket.destroy();
  });

  it('defaults to 120 s for the whole request and 60 s for its headers', async () => {
    await serve({});
    expect(app!.http.server.requestTimeout).toBe(120_000);
    expect(app!.http.server.headersTimeout).toBe(60_000);
  });
});

describe('max_connections', () => {
  it('closes a connection past the cap as it arrives, and takes one again once below it', async () => {
    const port = await serve({ max_connections: 2 });
    const first = await open(port);
    const second = await open(port);
    // Both held by the server before the third arrives.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = await open(port);
    expect(await third.closed).toBeLessThan(1000);
    expect(third.received()).toBe('');
    expect(logLines.filter((line) => /max_connections/.test(String(line.msg)))).toEqual([
      expect.objectContaining({ level: 40, refused: 1, max_connections: 2 }),
    ]);
    first.socket.destroy();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fourth = await open(port);
    const body = JSON.stringify({ service: 'const', query: 'q' });
    fourth.socket.write(HEAD(body.length) + body);
    await expect.poll(() => fourth.received()).toMatch(/^HTTP\/1\.1 200 /);
    second.socket.destroy();
    fourth.socket.destroy();
  });

  it('defaults to 4096', async () => {
    await serve({});
    expect(app!.http.server.maxConnections).toBe(4096);
  });
});
