/**
 * Services over a back-end that is unreachable: `/avail` lists them under `unavailable`,
 * `/health?service=` answers 503 for them (200 for the others), `/health` says degraded, and
 * the listing follows the back-end's state without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { SearchRequest } from '../../src/engines/contract.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { testApp } from '../helpers/app.js';

/** A search engine whose back-end state the test sets through the shared `states` map. */
class Remote {
  static readonly states = new Map<string, string>();
  readonly #name: string;
  constructor({ name }: { name: string }) {
    this.#name = name;
  }
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(() => ({ d1: 1 }));
  }
  health() {
    return { backend: 'Remote at r:1', state: Remote.states.get(this.#name) ?? 'up' };
  }
}

/** An engine whose health only informs (no `state`), as LSR's `prepared` or GGUF's `loaded`. */
class Informing {
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(() => ({ d1: 1 }));
  }
  health() {
    return { prepared: 'ready' };
  }
}

describe('availability of back-end services', () => {
  let app: App;
  const get = async (url: string) => {
    const response = await app.http.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.json() };
  };

  beforeAll(async () => {
    Remote.states.set('down-svc', 'down');
    app = await testApp(
      {
        services: [
          { name: 'up-svc', engine: 'Remote' },
          { name: 'down-svc', engine: 'Remote' },
          { name: 'plain', engine: 'ConstSearch' },
          { name: 'informing', engine: 'Informing' },
        ],
      },
      { engines: [...TEST_ENGINES, Remote, Informing] },
    );
  });
  afterAll(async () => {
    await app.close();
    Remote.states.clear();
  });

  it('lists the service whose back-end is down, and names each engine in /health', async () => {
    expect((await get('/avail')).body.unavailable).toEqual(['down-svc']);
    expect((await get('/avail')).body.search).toEqual(
      expect.arrayContaining(['up-svc', 'down-svc', 'plain']),
    );
    const health = await get('/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.engines).toEqual([
      { service: 'up-svc', backend: 'Remote at r:1', state: 'up' },
      { service: 'down-svc', backend: 'Remote at r:1', state: 'down' },
      { service: 'informing', prepared: 'ready' },
    ]);
  });

  it('counts an engine whose health has no state as up (issue 39, item 3)', async () => {
    Remote.states.set('down-svc', 'up');
    try {
      expect((await get('/avail')).body.unavailable).toEqual([]);
      expect((await get('/health')).body.status).toBe('ok');
      const informing = await get('/health?service=informing');
      expect(informing.status).toBe(200);
      expect(informing.body.service).toEqual({ name: 'informing', available: true });
    } finally {
      Remote.states.set('down-svc', 'down');
    }
  });

  it('answers /health?service= with 503 for that service only', async () => {
    const down = await get('/health?service=down-svc');
    expect(down.status).toBe(503);
    expect(down.body.service).toEqual({ name: 'down-svc', available: false });
    expect((await get('/health?service=up-svc')).status).toBe(200);
    const plain = await get('/health?service=plain');
    expect(plain.status).toBe(200);
    expect(plain.body.service).toEqual({ name: 'plain', available: true });
    // Fusion rules are services too.
    expect((await get('/health?service=RRF')).status).toBe(200);
  });

  it('follows the back-end: listed again as available once it is up', async () => {
    Remote.states.set('down-svc', 'up');
    expect((await get('/avail')).body.unavailable).toEqual([]);
    expect((await get('/health?service=down-svc')).status).toBe(200);
    Remote.states.set('down-svc', 'connecting');
    expect((await get('/avail')).body.unavailable).toEqual(['down-svc']);
  });

  it.each([
    ['an unknown service', '/health?service=nope', 'ERR_SERVICE_NOT_FOUND'],
    ['an inherited property name', '/health?service=constructor', 'ERR_SERVICE_NOT_FOUND'],
    ['an empty name', '/health?service=', 'ERR_BAD_REQUEST'],
    ['two names', '/health?service=plain&service=up-svc', 'ERR_BAD_REQUEST'],
    ['an oversized name', `/health?service=${'x'.repeat(4000)}`, 'ERR_BAD_REQUEST'],
  ])('refuses %s with 400 and a code', async (_, url, code) => {
    const answer = await get(url);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe(code);
    expect(answer.body.error).toMatch(/service/);
  });
});
