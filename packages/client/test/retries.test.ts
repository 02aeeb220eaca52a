/**
 * Retries: only a 503 is sent again, after the server's Retry-After (or a backoff), within the
 * call's deadline. A local HTTP server plays an overloaded irserve with scripted answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { IrserveClientError } from '@irserve/client';
import { HttpClient } from '@irserve/client';

interface Scripted {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Answers each request with the next scripted answer (the last one repeats); counts requests. */
async function scripted(answers: Scripted[]): Promise<{ url: string; count: () => number }> {
  let count = 0;
  server = createServer((request, response) => {
    const answer = answers[Math.min(count, answers.length - 1)]!;
    count += 1;
    request.resume();
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => count };
}

const overloaded: Scripted = {
  status: 503,
  body: JSON.stringify({ error: 'queue full', code: 'ERR_OVERLOADED' }),
  headers: { 'retry-after': '0' },
};
const ok: Scripted = { status: 200, body: JSON.stringify({ status: 'pong' }) };

describe('retries', () => {
  it('retries a 503 after Retry-After and then succeeds', async () => {
    const remote = await scripted([overloaded, overloaded, ok]);
    const client = new HttpClient({ baseUrl: remote.url });
    expect(await client.ping()).toEqual({ status: 'pong' });
    expect(remote.count()).toBe(3);
  });

  it('gives up after the retries with the server code and Retry-After', async () => {
    const remote = await scripted([overloaded]);
    const client = new HttpClient({ baseUrl: remote.url, retry: { retries: 2 } });
    const error = (await client.ping().catch((e: unknown) => e)) as IrserveClientError;
    expect(error).toMatchObject({ code: 'ERR_OVERLOADED', status: 503, retryAfter: 0 });
    expect(remote.count()).toBe(3);
  });

  it.each([
    [500, 'ERR_ENGINE'],
    [400, 'ERR_BAD_REQUEST'],
    [502, 'ERR_UPSTREAM'],
  ])('never retries a %i', async (status, code) => {
    const remote = await scripted([{ status, body: JSON.stringify({ error: 'no', code }) }, ok]);
    const client = new HttpClient({ baseUrl: remote.url });
    const error = (await client.ping().catch((e: unknown) => e)) as IrserveClientError;
    expect(error.code).toBe(code);
    expect(remote.count()).toBe(1);
  });

  it('stops waiting for a long Retry-After at the deadline', async () => {
    const remote = await scripted([{ ...overloaded, headers: { 'retry-after': '30' } }]);
    const client = new HttpClient({ baseUrl: remote.url, retry: { maxDelayMs: 60_000 } });
    const started = Date.now();
    const error = (await client
      .ping({ timeoutMs: 300 })
      .catch((e: unknown) => e)) as IrserveClientError;
    expect(error.code).toBe('ERR_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('turns a non-irserve answer into ERR_BAD_RESPONSE', async () => {
    const remote = await scripted([{ status: 200, body: '<html>proxy</html>' }]);
    const error = (await new HttpClient({ baseUrl: remote.url })
      .ping()
      .catch((e: unknown) => e)) as IrserveClientError;
    expect(error.code).toBe('ERR_BAD_RESPONSE');
    const remote502 = await (async () => {
      await new Promise((resolve) => server?.close(resolve));
      return scripted([{ status: 502, body: 'Bad Gateway' }]);
    })();
    const gateway = (await new HttpClient({ baseUrl: remote502.url })
      .ping()
      .catch((e: unknown) => e)) as IrserveClientError;
    expect(gateway).toMatchObject({ code: 'ERR_BAD_RESPONSE', status: 502 });
  });
});
