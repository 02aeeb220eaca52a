import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LocalCounter, LocalHistogram, LocalHistogramCount } from './local-series.js';
import type { AppObserver, CacheEvent, CacheLabels, ServiceObserver } from './observer.js';

/** The labels of one answered request. */
export interface RequestLabels {
  /** `http` or `grpc`. */
  transport: string;
  /** The route template (`/search`) or gRPC method; never a raw URL (bounded cardinality). */
  route: string;
  /** A configured service or collection name, or "" (unknown names are never labels). */
  service: string;
  status: string;
}

/** Prometheus metrics of one app: an AppObserver plus the request series and the exposition. */
export interface AppMetrics extends AppObserver {
  observeRequest(labels: RequestLabels, seconds: number): void;
  /** The exposition text and its content type, for `/metrics`. */
  render(): Promise<{ contentType: string; body: string }>;
  close(): void;
}

const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/** Every series of an app, registered in this order (the exposition's). */
function series(registry: Registry) {
  return {
    ...requestSeries(registry),
    ...engineSeries(registry),
    ...cacheSeries(registry),
    ...relaySeries(registry),
  };
}

/** The series of every answered request: irserve's own (see local-series.ts). */
function requestSeries(registry: Registry) {
  const labels = ['transport', 'route', 'service', 'status'] as const;
  const requestSeconds = new LocalHistogram(
    'irserve_request_duration_seconds',
    'Time from request to response, by route, service and status.',
    labels,
    LATENCY_BUCKETS,
    registry,
  );
  return {
    requestSeconds,
    // The same requests counted: the histogram's counts, so a request is looked up once.
    requests: new LocalHistogramCount(
      'irserve_requests_total',
      'Requests answered, by route, service and status.',
      requestSeconds,
      registry,
    ),
  };
}

/** The series of every batch and engine call: irserve's own, bound once per service. */
function engineSeries(registry: Registry) {
  return {
    batchSize: new LocalHistogram(
      'irserve_batch_size',
      'Requests per batch handed to the engine.',
      ['service', 'role'],
      BATCH_BUCKETS,
      registry,
    ),
    engineSeconds: new LocalHistogram(
      'irserve_engine_duration_seconds',
      'Time in the engine per batch (or per call for one-at-a-time services).',
      ['service', 'role', 'outcome'],
      LATENCY_BUCKETS,
      registry,
    ),
  };
}

/** Counted on every cache lookup: irserve's own series too, bound once per cache. */
function cacheSeries(registry: Registry) {
  const labels = ['service', 'role', 'store'] as const;
  return {
    cacheHits: new LocalCounter(
      'irserve_cache_hits_total',
      'Cache lookups answered from the store.',
      labels,
      registry,
    ),
    cacheMisses: new LocalCounter(
      'irserve_cache_misses_total',
      'Cache lookups that went on to compute.',
      labels,
      registry,
    ),
    cacheEvictions: new LocalCounter(
      'irserve_cache_evictions_total',
      'Entries removed by the in-memory store: reason "size" (LRU) or "ttl" (expired).',
      [...labels, 'reason'],
      registry,
    ),
  };
}

/** Relayed calls and content lookups: rarer events, on prom-client's own series. */
function relaySeries(registry: Registry) {
  const registers = [registry];
  return {
    relayCalls: new Counter({
      name: 'irserve_relay_calls_total',
      help: 'Calls relayed to imported remotes, by outcome.',
      labelNames: ['remote', 'role', 'outcome'],
      registers,
    }),
    relayFailures: new Counter({
      name: 'irserve_relay_failures_total',
      help: "Relayed calls that failed (after the relay's own retries).",
      labelNames: ['remote', 'role'],
      registers,
    }),
    relaySeconds: new Histogram({
      name: 'irserve_relay_duration_seconds',
      help: 'Time of a relayed call, retries included.',
      labelNames: ['remote', 'role'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    content: new Counter({
      name: 'irserve_content_lookups_total',
      help: 'Document content lookups (HTTP, gRPC and pipeline rerank stages), by outcome.',
      labelNames: ['collection', 'outcome'],
      registers,
    }),
  };
}

/** A batching service's queue, read when the metrics are scraped. */
interface WatchedQueue {
  labels: { service: string; role: string };
  depth: () => number;
}

/** The gauges read at scrape time: each watched queue's depth, and the build's version. */
function registerGauges(registry: Registry, version: string, queues: WatchedQueue[]): void {
  new Gauge({
    name: 'irserve_queue_depth',
    help: 'Requests waiting for a batch, per batching service.',
    labelNames: ['service', 'role'],
    registers: [registry],
    collect() {
      this.reset();
      for (const queue of queues) this.set(queue.labels, queue.depth());
    },
  });
  new Gauge({
    name: 'irserve_build_info',
    help: 'Always 1; the version as a label.',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
}

/**
 * Creates the metrics of one app in a registry of its own (two apps in one process never share
 * series), with Node's process metrics (`process_*`, `nodejs_*`).
 *
 * @example
 * const metrics = createPrometheusMetrics({ version: '0.1.0' });
 * metrics.observeRequest({ transport: 'http', route: '/search', service: 'bm25', status: '200' }, 0.004);
 * const { body } = await metrics.render();
 */
export function createPrometheusMetrics(options: { version: string }): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const s = series(registry);
  const queues: WatchedQueue[] = [];
  registerGauges(registry, options.version, queues);
  return {
    // Counted in irserve_requests_total too (a count of the same series).
    observeRequest: (labels, seconds) => s.requestSeconds.observe(labels, seconds),
    service: (service, role): ServiceObserver => {
      // Each label set bound once per service, not looked up per event.
      const batch = s.batchSize.series({ service, role });
      const succeeded = s.engineSeconds.series({ service, role, outcome: 'ok' });
      const failed = s.engineSeconds.series({ service, role, outcome: 'error' });
      return {
        onBatch: (size) => batch(size),
        onEngine: (seconds, ok) => (ok ? succeeded : failed)(seconds),
        watchQueue: (depth) => queues.push({ labels: { service, role }, depth }),
      };
    },
    cache: (labels: CacheLabels) => {
      const counters: Record<CacheEvent, () => void> = {
        hit: s.cacheHits.series({ ...labels }),
        miss: s.cacheMisses.series({ ...labels }),
        evicted: s.cacheEvictions.series({ ...labels, reason: 'size' }),
        expired: s.cacheEvictions.series({ ...labels, reason: 'ttl' }),
      };
      return (event: CacheEvent) => counters[event]();
    },
    relayCall: (remote, role, seconds, ok) => {
      s.relayCalls.inc({ remote, role, outcome: ok ? 'ok' : 'error' });
      if (!ok) s.relayFailures.inc({ remote, role });
      s.relaySeconds.observe({ remote, role }, seconds);
    },
    contentLookup: (collection, outcome) => s.content.inc({ collection, outcome }),
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    close: () => registry.clear(),
  };
}
