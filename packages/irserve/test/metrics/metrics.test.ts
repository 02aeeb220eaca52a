import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { collectionConfig, corpus } from '../federation/helpers.js';

/** The value of one series in a Prometheus exposition, or undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const found = Object.fromEntries(
      [...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value))
      return Number(match[2]);
  }
  return undefined;
}

const KEY = 'metrics-key';
const auth = { authorization: `Bearer ${KEY}` };

describe('/metrics after a scripted sequence of requests', () => {
  let app: App;
  let text: string;

  beforeAll(async () => {
    const docs = await corpus(5);
    app = await testApp(
      {
        services: [
          { name: 'const', engine: 'ConstSearch', max_wait_time: 0.005 },
          { name: 'recording', engine: 'RecordingSearch', max_wait_time: 0.05, cache: 0 },
          { name: 'tiny', engine: 'ConstSearch', max_wait_time: 0, cache: 1 },
          { name: 'failing', engine: 'FailingSearch', max_wait_time: 0.005 },
        ],
        collections: [collectionConfig('docs', docs)],
      },
      { apiKey: KEY },
    );
    const post = (url: string, payload: unknown) =>
      app.http.inject({ method: 'POST', url, payload: payload as object, headers: auth });
    await post('/search', { service: 'const', query: 'q1', limit: 1 }); // miss
    await post('/search', { service: 'const', query: 'q1', limit: 1 }); // hit
    await post('/search', { service: 'const', query: 'q1', limit: 1 }); // hit
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((query) =>
        post('/search', { service: 'recording', query, limit: 1 }),
      ),
    );
    await post('/search', { service: 'tiny', query: 'x', limit: 1 });
    await post('/search', { service: 'tiny', query: 'y', limit: 1 }); // evicts x
    await post('/search', { service: 'failing', query: 'q', limit: 1 }); // 500
    await post('/search', { service: '<script>alert(1)</script>', query: 'q' }); // 400
    await post('/content', { collection: 'docs', id: 'doc1' });
    await post('/content', { collection: 'docs', id: 'nope' });
    await app.http.inject({ method: 'GET', url: '/no/such/path', headers: auth });
    const response = await app.http.inject({ method: 'GET', url: '/metrics', headers: auth });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    text = response.body;
  }, 60_000);
  afterAll(() => app.close());

  it('counts requests per route, service and status, with latency histograms', () => {
    const ok = { transport: 'http', route: '/search', service: 'const', status: '200' };
    expect(sample(text, 'irserve_requests_total', ok)).toBe(3);
    expect(sample(text, 'irserve_request_duration_seconds_count', ok)).toBe(3);
    expect(sample(text, 'irserve_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(3);
    expect(sample(text, 'irserve_requests_total', { service: 'failing', status: '500' })).toBe(1);
    expect(sample(text, 'irserve_requests_total', { route: '(no route)', status: '404' })).toBe(1);
  });

  it('never turns a name a client made up into a label value', () => {
    expect(text).not.toContain('<script>');
    expect(text).not.toContain('alert');
    expect(
      sample(text, 'irserve_requests_total', { route: '/search', service: '', status: '400' }),
    ).toBe(1);
  });

  it('reports batch sizes, engine time and queue depth per batching service', () => {
    const recording = { service: 'recording', role: 'search' };
    // Four requests sent together: one batch of 4 (or more batches on a very slow machine).
    const batches = sample(text, 'irserve_batch_size_count', recording)!;
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'irserve_batch_size_sum', recording)).toBe(4);
    expect(
      sample(text, 'irserve_engine_duration_seconds_count', { ...recording, outcome: 'ok' }),
    ).toBe(batches);
    expect(
      sample(text, 'irserve_engine_duration_seconds_count', {
        service: 'failing',
        outcome: 'error',
      }),
    ).toBe(1);
    expect(sample(text, 'irserve_queue_depth', recording)).toBe(0);
  });

  it('counts cache hits, misses and evictions per service and store', () => {
    const cache = { service: 'const', role: 'search', store: 'memory' };
    expect(sample(text, 'irserve_cache_hits_total', cache)).toBe(2);
    expect(sample(text, 'irserve_cache_misses_total', cache)).toBe(1);
    expect(sample(text, 'irserve_cache_evictions_total', { service: 'tiny', reason: 'size' })).toBe(
      1,
    );
    expect(sample(text, 'irserve_cache_hits_total', { service: 'recording' })).toBeUndefined();
  });

  it('counts content lookups by outcome, and exposes process metrics', () => {
    expect(
      sample(text, 'irserve_content_lookups_total', { collection: 'docs', outcome: 'found' }),
    ).toBe(1);
    expect(
      sample(text, 'irserve_content_lookups_total', { collection: 'docs', outcome: 'not_found' }),
    ).toBe(1);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'irserve_build_info')).toBe(1);
  });

  it('asks for the bearer key like every route', async () => {
    const response = await app.http.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'ERR_UNAUTHORIZED' });
  });
});

describe('metrics on a port of their own', () => {
  it('serves /metrics there without a key, and not on the API port', async () => {
    const app = await testApp(
      { services: [{ name: 'const', engine: 'ConstSearch' }], metrics: { port: 0 } },
      { apiKey: KEY },
    );
    try {
      const api = await app.listen({ port: 0, host: '127.0.0.1' });
      const metricsUrl = app.addresses.metrics!;
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const open = await fetch(metricsUrl);
      expect(open.status).toBe(200);
      expect(await open.text()).toContain('irserve_build_info');
      expect((await fetch(metricsUrl.replace('/metrics', '/avail'))).status).toBe(404);
      expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
      const onApi = await fetch(`${api}/metrics`, { headers: auth });
      expect(onApi.status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('is switched off with metrics.enabled false', async () => {
    const app = await testApp({ services: [], metrics: { enabled: false } });
    try {
      expect((await app.http.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('rejects malformed metrics settings naming the field', async () => {
    await expect(testApp({ metrics: { port: 'nine' } })).rejects.toThrow(/metrics\.port/);
    await expect(testApp({ metrics: { port: 70000 } })).rejects.toThrow(/metrics\.port/);
    await expect(testApp({ metrics: { prot: 1 } })).rejects.toThrow(/did you mean "port"/);
  });
});

describe('relay metrics', () => {
  it('counts relayed calls and failures per remote', async () => {
    const remote = await testApp({
      services: [
        { name: 'far', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'farfail', engine: 'FailingSearch', max_wait_time: 0 },
      ],
    });
    const remoteUrl = await remote.listen({ port: 0, host: '127.0.0.1' });
    const front = await testApp({
      server_imports: [{ endpoint: remoteUrl, retries: 0, transport: 'rest' }],
      relay_cache: 0,
    });
    try {
      const post = (payload: object) =>
        front.http.inject({ method: 'POST', url: '/search', payload });
      expect((await post({ service: 'far', query: 'q', limit: 1 })).statusCode).toBe(200);
      expect(
        (await post({ service: 'farfail', query: 'q', limit: 1 })).statusCode,
      ).toBeGreaterThanOrEqual(500);
      const text = (await front.http.inject({ method: 'GET', url: '/metrics' })).body;
      const labels = { remote: remoteUrl, role: 'search' };
      expect(sample(text, 'irserve_relay_calls_total', { ...labels, outcome: 'ok' })).toBe(1);
      expect(sample(text, 'irserve_relay_calls_total', { ...labels, outcome: 'error' })).toBe(1);
      expect(sample(text, 'irserve_relay_failures_total', labels)).toBe(1);
      expect(sample(text, 'irserve_relay_duration_seconds_count', labels)).toBe(2);
    } finally {
      await front.close();
      await remote.close();
    }
  });
});

describe('gRPC request metrics', () => {
  it('counts gRPC calls per RPC, service and status beside the HTTP ones', async () => {
    const { grpcInstance, rawClient, statusOf } = await import('../grpc/helpers.js');
    const instance = await grpcInstance({
      services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0 }],
    });
    const client = await rawClient(instance.grpcPort);
    try {
      await client.call('Search', { service: 'const', query: 'q', limit: 1 });
      await client.call('Search', { service: 'const', query: 'r', limit: 1 });
      await statusOf(client.call('Search', { service: 'made-up', query: 'q' }));
      const text = (await instance.app.http.inject({ method: 'GET', url: '/metrics' })).body;
      const ok = { transport: 'grpc', route: 'Search', service: 'const', status: 'OK' };
      expect(sample(text, 'irserve_requests_total', ok)).toBe(2);
      expect(sample(text, 'irserve_request_duration_seconds_count', ok)).toBe(2);
      expect(
        sample(text, 'irserve_requests_total', { transport: 'grpc', service: '', route: 'Search' }),
      ).toBe(1);
      expect(text).not.toContain('made-up');
    } finally {
      client.close();
      await instance.app.close();
    }
  });
});
