/**
 * Calls nobody waits for any more (their request timed out, its client left) stop where they
 * are: queued for one of the API's slots, in flight, or waiting to retry. Without that, a slow
 * API's abandoned calls keep the slots and every request behind them times out too.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiHttpClient } from '../../../src/engines/apis/api-http.js';
import { Limiter } from '../../../src/engines/apis/limiter.js';
import { AbortScope } from '../../../src/util/abort-scope.js';
import { apiHarness, post } from './app.js';
import { fakeApi, type FakeApi } from './fake-api.js';
import { cohereReply, judgeReply } from './replies.js';

const apis: FakeApi[] = [];
const clients: ApiHttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(apis.splice(0).map((api) => api.close()));
});

/** A client of a fake API whose first call answers after `firstDelayMs`, the others at once. */
async function clientOf(firstDelayMs: number, options: { concurrency?: number } = {}) {
  const api = await fakeApi((_request, n) => ({
    body: { ok: n },
    delayMs: n === 1 ? firstDelayMs : 0,
  }));
  apis.push(api);
  const client = new ApiHttpClient({
    baseUrl: api.url,
    provider: 'Test API',
    timeoutMs: 30_000,
    retries: 2,
    concurrency: options.concurrency ?? 1,
  });
  clients.push(client);
  return { api, client };
}

const gone = () => new Error('client left');

describe('Limiter with a signal', () => {
  it('a waiter whose signal aborts leaves the queue without taking a slot', async () => {
    const limiter = new Limiter(1);
    let release!: () => void;
    const first = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let ran = false;
    const second = limiter.run(async () => void (ran = true), controller.signal);
    controller.abort(gone());
    await expect(second).rejects.toThrow('client left');
    const third = limiter.run(async () => 'third');
    release();
    await first;
    expect(await third).toBe('third');
    expect(ran).toBe(false);
  });

  it('refuses at once when the signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(gone());
    await expect(new Limiter(1).run(async () => 1, controller.signal)).rejects.toThrow(
      'client left',
    );
  });

  it('keeps its bound when waiters leave and others finish', async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let most = 0;
    const task = async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    };
    const controllers = Array.from({ length: 10 }, () => new AbortController());
    const runs = controllers.map((controller) => limiter.run(task, controller.signal));
    for (const controller of controllers.filter((_, i) => i % 3 === 2)) controller.abort(gone());
    const settled = await Promise.allSettled(runs);
    expect(most).toBe(2);
    expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(7);
  });
});

describe('ApiHttpClient with a signal', () => {
  it('cuts a call in flight and hands its slot to the next call', async () => {
    const { api, client } = await clientOf(20_000);
    const controller = new AbortController();
    const stalled = client.postJson('/x', { n: 1 }, controller.signal);
    await waitFor(() => api.calls.length === 1);
    const next = client.postJson('/x', { n: 2 });
    const started = performance.now();
    controller.abort(gone());
    await expect(stalled).rejects.toThrow('client left');
    expect(await next).toEqual({ ok: 2 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(api.calls).toHaveLength(2); // the cut call was not retried
  });

  it('a queued call that is abandoned never reaches the API', async () => {
    const { api, client } = await clientOf(300);
    const first = client.postJson('/x', { n: 1 });
    const controller = new AbortController();
    const queued = client.postJson('/x', { n: 2 }, controller.signal);
    controller.abort(gone());
    await expect(queued).rejects.toThrow('client left');
    expect(await first).toEqual({ ok: 1 });
    expect(api.calls.map((call) => call.body)).toEqual([{ n: 1 }]);
  });

  it('adds no listener to a batch signal for its many calls (Node warns past 10)', async () => {
    const { api, client } = await clientOf(200);
    const scope = new AbortScope();
    const calls = Array.from({ length: 20 }, (_, n) => client.postJson('/x', { n }, scope.signal));
    await waitFor(() => api.calls.length === 1);
    expect(getEventListeners(scope.signal, 'abort')).toHaveLength(0);
    scope.abort(gone());
    const settled = await Promise.allSettled(calls);
    expect(settled.every((result) => result.status === 'rejected')).toBe(true);
    expect(api.calls).toHaveLength(1);
  });

  it('stops waiting to retry when the signal aborts', async () => {
    const api = await fakeApi(() => ({ status: 429, headers: { 'retry-after': '30' }, body: {} }));
    apis.push(api);
    const client = new ApiHttpClient({
      baseUrl: api.url,
      provider: 'Test API',
      timeoutMs: 30_000,
      retries: 3,
      maxRetryWaitMs: 60_000,
    });
    clients.push(client);
    const controller = new AbortController();
    const call = client.postJson('/x', {}, controller.signal);
    await waitFor(() => api.calls.length === 1);
    const started = performance.now();
    controller.abort(gone());
    await expect(call).rejects.toThrow('client left');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(api.calls).toHaveLength(1);
  });
});

describe('an API service whose request timed out', () => {
  const harness = apiHarness();

  it('frees the API slot for the next request (concurrency 1)', async () => {
    const { api } = await harness.start(
      (request, n) => ({ ...cohereReply(request), delayMs: n === 1 ? 20_000 : 0 }),
      (url) => [
        {
          name: 'rr',
          engine: 'RerankAPI',
          max_wait_time: 0,
          config: { base_url: url, model: 'm', concurrency: 1 },
        },
      ],
    );
    const score = (extra: Record<string, unknown> = {}) =>
      post(harness.app, '/score', { service: 'rr', query: 'q', passages: ['a'], ...extra });
    const timedOut = await score({ timeout: 0.2 });
    expect(timedOut.status).toBe(504);
    const started = performance.now();
    const next = await score({ query: 'another' });
    expect(next.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(api.calls).toHaveLength(2);
  });
});

describe('an LLM judge whose request timed out', () => {
  const harness = apiHarness();

  it('makes no more calls for the passages left (each one a paid call)', async () => {
    const { api } = await harness.start(
      (request) => ({ ...judgeReply(request), delayMs: 100 }),
      (url) => [
        {
          name: 'judge',
          engine: 'LLMScorer',
          max_wait_time: 0,
          config: {
            base_url: `${url}/v1`,
            model: 'qwen',
            concurrency: 1,
            prompt: '{query} {passage}',
          },
        },
      ],
    );
    const passages = Array.from({ length: 20 }, (_, i) => `passage ${i}`);
    const body = { service: 'judge', query: 'q', passages, timeout: 0.25 };
    expect((await post(harness.app, '/score', body)).status).toBe(504);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(api.calls.length).toBeLessThanOrEqual(4);
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}
