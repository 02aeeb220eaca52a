/**
 * Issue 39, item 8: the cap on abandoned engine calls (docs/reliability.md: at most 16 per
 * `max_concurrent_batches` slot) holds for an engine that ignores its abort signal: requests
 * that time out one after another never have more than 1 + 16 calls running in the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { SearchRequest } from '../../src/engines/contract.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';

/** Never answers and never reads its signal; counts the calls it is running. */
class DeafSearch {
  static running = 0;
  static started = 0;
  static release: (() => void)[] = [];
  async searchBatch(requests: SearchRequest[]) {
    DeafSearch.started++;
    DeafSearch.running++;
    await new Promise<void>((resolve) => DeafSearch.release.push(resolve));
    DeafSearch.running--;
    return requests.map(() => ({ late: 1 }));
  }
}

describe('abandoned engine calls (issue 39, item 8)', () => {
  let app: App;
  beforeAll(async () => {
    app = await testApp(
      {
        services: [
          {
            name: 'deaf',
            engine: 'DeafSearch',
            timeout: 0.03,
            batch_size: 1,
            max_concurrent_batches: 1,
            max_wait_time: 0,
            cache: -1,
          },
        ],
      },
      { engines: [...TEST_ENGINES, DeafSearch] },
    );
  });
  afterAll(async () => {
    for (const release of DeafSearch.release.splice(0)) release();
    await app?.close();
  });

  it('keeps at most 16 abandoned calls per slot running, answering the rest 504 in time', async () => {
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      const reply = await app.http.inject({
        method: 'POST',
        url: '/search',
        payload: { service: 'deaf', query: `q${i}`, limit: 1 },
      });
      expect(reply.statusCode).toBe(504);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    expect(DeafSearch.running).toBe(17); // the slot's call and 16 abandoned ones
    expect(DeafSearch.started).toBe(17);
    // Once the engine answers, the slots come back.
    for (const release of DeafSearch.release.splice(0)) release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(DeafSearch.running).toBe(0);
    const reply = await app.http.inject({
      method: 'POST',
      url: '/search',
      payload: { service: 'deaf', query: 'after', limit: 1, timeout: 5 },
    });
    expect(DeafSearch.started).toBe(18);
    for (const release of DeafSearch.release.splice(0)) release();
    expect(reply.statusCode).toBe(504); // it was told 0.03 s by the service's timeout
  });
});
