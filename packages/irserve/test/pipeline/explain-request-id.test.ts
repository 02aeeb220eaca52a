import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

describe('explain carries the request id', () => {
  let app: App;
  beforeAll(async () => {
    app = await testApp({ services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0 }] });
  });
  afterAll(() => app.close());

  it('is the x-request-id of the request, as in the log line and the answer header', async () => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/pipeline',
      headers: { 'x-request-id': 'trace-me-42' },
      payload: { pipeline: 'const', query: 'q', explain: true },
    });
    expect(response.headers['x-request-id']).toBe('trace-me-42');
    expect(response.json().explain).toMatchObject({ plan: 'const', request_id: 'trace-me-42' });
  });

  it('is absent without explain', async () => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/pipeline',
      payload: { pipeline: 'const', query: 'q' },
    });
    expect(response.json().explain).toBeUndefined();
  });
});
