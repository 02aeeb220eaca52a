import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await testApp({
    services: [
      {
        name: 'slow',
        engine: 'SleepSearch',
        config: { delay_ms: 200 },
        batch_size: 1,
        max_wait_time: 0,
        max_queue: 2,
        cache: -1,
      },
    ],
  });
});
afterAll(async () => {
  await app.close();
});

describe('bounded queue', () => {
  it('answers 503 with Retry-After once max_queue requests wait, and serves the rest', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.http.inject({
          method: 'POST',
          url: '/search',
          payload: { service: 'slow', query: `q${i}` },
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200).length).toBe(3);
    const rejected = responses.filter((r) => r.statusCode === 503);
    expect(rejected.length).toBe(3);
    expect(rejected[0]!.headers['retry-after']).toBe('1');
    expect(rejected[0]!.json().code).toBe('ERR_OVERLOADED');
  });
});
