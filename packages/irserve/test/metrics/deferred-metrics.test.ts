import { describe, expect, it } from 'vitest';
import { deferredMetrics } from '../../src/metrics/deferred-metrics.js';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';
import type { AppMetrics } from '../../src/metrics/prometheus.js';

const request = { transport: 'http', route: '/search', service: 'bm25', status: '200' };

/** The value of an unlabelled-or-matching series line (`name{...} value`). */
function value(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('deferredMetrics (prom-client loaded after start-up)', () => {
  it('creates nothing until loaded, then replays every event recorded before, in order', async () => {
    let created = 0;
    const metrics = deferredMetrics(async () => {
      created++;
      return createPrometheusMetrics({ version: 'test' });
    });
    metrics.observeRequest(request, 0.01);
    metrics.observeRequest(request, 0.02);
    const service = metrics.service('bm25', 'search');
    service.onBatch(3, 0);
    service.onEngine(0.005, true);
    service.watchQueue(() => 7);
    const onCache = metrics.cache({ service: 'bm25', role: 'search', store: 'memory' });
    onCache('hit');
    onCache('miss');
    onCache('evicted');
    metrics.relayCall('http://remote', 'search', 0.1, false);
    metrics.contentLookup('docs', 'found');
    expect(created).toBe(0);

    const { body } = await metrics.render();
    expect(created).toBe(1);
    expect(value(body, 'irserve_requests_total{transport="http"')).toBe(2);
    expect(value(body, 'irserve_batch_size_count{service="bm25"')).toBe(1);
    expect(value(body, 'irserve_engine_duration_seconds_count{service="bm25"')).toBe(1);
    expect(value(body, 'irserve_queue_depth{service="bm25"')).toBe(7);
    expect(value(body, 'irserve_cache_hits_total{')).toBe(1);
    expect(value(body, 'irserve_cache_misses_total{')).toBe(1);
    expect(value(body, 'irserve_cache_evictions_total{')).toBe(1);
    expect(value(body, 'irserve_relay_failures_total{')).toBe(1);
    expect(value(body, 'irserve_content_lookups_total{')).toBe(1);

    // Once loaded, events go straight through (the same observers keep working).
    metrics.observeRequest(request, 0.03);
    service.onBatch(1, 0);
    onCache('hit');
    const after = (await metrics.render()).body;
    expect(created).toBe(1);
    expect(value(after, 'irserve_requests_total{transport="http"')).toBe(3);
    expect(value(after, 'irserve_batch_size_count{service="bm25"')).toBe(2);
    expect(value(after, 'irserve_cache_hits_total{')).toBe(2);
    metrics.close();
  });

  it('loads once however many callers ask at the same time', async () => {
    let created = 0;
    const metrics = deferredMetrics(async () => {
      created++;
      return createPrometheusMetrics({ version: 'test' });
    });
    const [a, b] = await Promise.all([metrics.load(), metrics.load(), metrics.render()]);
    expect(a).toBe(b);
    expect(created).toBe(1);
    metrics.close();
  });

  it('starts loading by itself when many events wait (an app that never listens)', async () => {
    let created = 0;
    const metrics = deferredMetrics(async () => {
      created++;
      return createPrometheusMetrics({ version: 'test' });
    });
    for (let i = 0; i < 10_000; i++) metrics.observeRequest(request, 0.001);
    expect(created).toBe(1);
    const { body } = await metrics.render();
    expect(value(body, 'irserve_requests_total{transport="http"')).toBe(10_000);
    metrics.close();
  });

  it('a failed load makes render reject with its error and drops events, never throws at callers', async () => {
    const metrics = deferredMetrics(async () => {
      throw new Error('prom-client is missing');
    });
    metrics.observeRequest(request, 0.01);
    await expect(metrics.render()).rejects.toThrow('prom-client is missing');
    expect(() => metrics.observeRequest(request, 0.01)).not.toThrow();
    expect(() => metrics.service('s', 'search').onBatch(1, 0)).not.toThrow();
    await expect(metrics.load()).rejects.toThrow('prom-client is missing');
  });

  it('closed before the load finished: the loaded metrics are closed too', async () => {
    let closed = 0;
    const metrics = deferredMetrics(async () => {
      const real = createPrometheusMetrics({ version: 'test' });
      return {
        ...real,
        close: () => {
          closed++;
          real.close();
        },
      } satisfies AppMetrics;
    });
    const loading = metrics.load();
    metrics.close();
    await loading;
    expect(closed).toBe(1);
  });
});
