/**
 * Every request ends in bounded time: a hanging engine answers 504 ERR_TIMEOUT (never blocks its
 * service for good) and recovers when the engine does; deadlines come from the service
 * `timeout`, the `timeout` field and the `x-request-timeout` header; a polite engine is told
 * through its AbortSignal; a client that disconnects cancels its queued work.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { FAULT_ENGINES, HangingSearch, PoliteSlowSearch } from './fault-engines.js';

let app: App;
const search = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.http.inject({ method: 'POST', url: '/search', payload: body, headers });

beforeAll(async () => {
  app = await testApp(
    {
      timeout: 30,
      services: [
        { name: 'hanging', engine: 'HangingSearch', timeout: 0.2, max_wait_time: 0.01, cache: -1 },
        { name: 'polite', engine: 'PoliteSlowSearch', config: { delay_ms: 2000 }, cache: -1 },
        { name: 'polite2', engine: 'PoliteSlowSearch', config: { delay_ms: 2000 }, cache: -1 },
        { name: 'const', engine: 'ConstSearch', cache: -1 },
      ],
    },
    { engines: [...TEST_ENGINES, ...FAULT_ENGINES] },
  );
});
afterAll(async () => {
  HangingSearch.hang = false;
  await app?.close();
});

describe('deadlines', () => {
  it('a hanging engine answers 504 ERR_TIMEOUT, keeps answering, and recovers', async () => {
    HangingSearch.hang = true;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => search({ service: 'hanging', query: `q${i}` })),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    for (const answer of answers) {
      expect(answer.statusCode).toBe(504);
      expect(answer.json()).toMatchObject({ code: 'ERR_TIMEOUT' });
    }
    // Still answering (timeouts, not 503 forever) while it hangs.
    expect((await search({ service: 'hanging', query: 'again' })).statusCode).toBe(504);
    expect(HangingSearch.signals.some((signal) => signal.aborted)).toBe(true);
    HangingSearch.hang = false;
    const recovered = await search({ service: 'hanging', query: 'later' });
    expect(recovered.statusCode).toBe(200);
    expect(recovered.json().scores).toEqual({ ok: 1 });
  });

  it('the timeout field and the x-request-timeout header cut a request short', async () => {
    const byField = await search({ service: 'polite', query: 'a', timeout: 0.05 });
    expect(byField.statusCode).toBe(504);
    expect(byField.json().error).toMatch(/service "polite" did not finish before its deadline/);
    const byHeader = await search(
      { service: 'polite', query: 'b' },
      { 'x-request-timeout': '0.05' },
    );
    expect(byHeader.statusCode).toBe(504);
    expect(PoliteSlowSearch.aborted).toBeGreaterThanOrEqual(1);
  });

  it("a pipeline's stages that end together fail with the first stage's ERR_TIMEOUT, both told", async () => {
    const before = PoliteSlowSearch.aborted;
    const r = await app.http.inject({
      method: 'POST',
      url: '/pipeline',
      payload: { pipeline: '{polite, polite2}RRF', query: 'p', timeout: 0.05 },
    });
    expect(r.statusCode).toBe(504);
    expect(r.json()).toMatchObject({
      code: 'ERR_TIMEOUT',
      error: expect.stringMatching(/service "polite" did not finish before its deadline/),
    });
    const deadline = Date.now() + 3_000;
    while (PoliteSlowSearch.aborted < before + 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(PoliteSlowSearch.aborted).toBe(before + 2);
  });

  it('refuses malformed deadlines with 400 naming the field or header', async () => {
    for (const timeout of [-1, 0, 'soon', 1e9, {}]) {
      const r = await search({ service: 'const', query: 'a', timeout });
      expect(r.statusCode, JSON.stringify(timeout)).toBe(400);
      expect(r.json().error).toMatch(/^timeout: /);
    }
    for (const header of ['abc', '-1', '0', '1e3', '999999999']) {
      const r = await search({ service: 'const', query: 'a' }, { 'x-request-timeout': header });
      expect(r.statusCode, header).toBe(400);
      expect(r.json()).toMatchObject({ code: 'ERR_BAD_REQUEST', fields: ['x-request-timeout'] });
    }
  });

  it('a generous deadline changes nothing, and never reaches the engine', async () => {
    const r = await search({ service: 'const', query: 'a', timeout: 10, limit: 2 });
    expect(r.statusCode).toBe(200);
    expect(r.json().scores).toEqual({ doc0: 2, doc1: 1 });
  });
});

describe('client disconnects', () => {
  it('a client that leaves cancels its work: the engine is told through its signal', async () => {
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.http.server.address() as AddressInfo;
    const before = PoliteSlowSearch.aborted;
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/search',
      headers: { 'content-type': 'application/json' },
    });
    request.on('error', () => undefined);
    request.end(JSON.stringify({ service: 'polite', query: 'leaving' }));
    await new Promise((r) => setTimeout(r, 150));
    request.destroy();
    const deadline = Date.now() + 3_000;
    while (PoliteSlowSearch.aborted === before && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(PoliteSlowSearch.aborted).toBe(before + 1);
  });
});
