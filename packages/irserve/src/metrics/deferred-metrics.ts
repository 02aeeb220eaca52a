import type { CacheEvent, CacheLabels, ServiceObserver } from './observer.js';
import type { AppMetrics, RequestLabels } from './prometheus.js';

/** AppMetrics whose implementation (prom-client and its registry) is loaded after start-up. */
export interface DeferredMetrics extends AppMetrics {
  /** Loads the implementation now (idempotent) and replays what was recorded meanwhile. */
  load(): Promise<AppMetrics>;
}

/**
 * Events recorded before the implementation is loaded are kept, in order, up to this many;
 * reaching it starts the load (an app that never listens, say under `inject()` in tests).
 */
const MAX_PENDING = 10_000;

/** One recorded event, replayed into the loaded metrics. */
type Replay = (metrics: AppMetrics) => void;

/**
 * Metrics that cost nothing at start-up: prom-client (some 80 CommonJS files with its
 * dependencies) and the registry are loaded by `load()`, which the app calls once it listens,
 * or by the first scrape. Until then every event is kept and replayed into the loaded metrics,
 * so nothing recorded is lost and the series read as if the implementation had been there from
 * the start. If the load fails, `render()` rejects with its error and events are dropped.
 *
 * @example
 * const metrics = deferredMetrics(async () => createPrometheusMetrics({ version }));
 * await app.http.listen({ port: 0 });
 * void metrics.load();
 */
export function deferredMetrics(create: () => Promise<AppMetrics>): DeferredMetrics {
  let loaded: AppMetrics | undefined;
  let loading: Promise<AppMetrics> | undefined;
  let failed = false;
  let closed = false;
  let pending: Replay[] = [];
  const load = () =>
    (loading ??= create().then(
      (metrics) => {
        loaded = metrics;
        for (const replay of pending) replay(metrics);
        pending = [];
        if (closed) metrics.close();
        return metrics;
      },
      (error: unknown) => {
        failed = true;
        pending = [];
        throw error;
      },
    ));
  /** Keeps an event for the loaded metrics (the caller has checked that they are not yet). */
  const later = (event: Replay) => {
    if (failed) return;
    pending.push(event);
    if (pending.length >= MAX_PENDING) load().catch(() => undefined);
  };
  // Once loaded, each call goes straight to the implementation: one check, no allocation.
  return {
    load,
    observeRequest: (labels: RequestLabels, seconds: number) => {
      if (loaded) loaded.observeRequest(labels, seconds);
      else later((metrics) => metrics.observeRequest(labels, seconds));
    },
    service: (name, role) => deferredService(() => loaded, later, name, role),
    cache: (labels: CacheLabels) => deferredCache(() => loaded, later, labels),
    relayCall: (remote, role, seconds, ok) => {
      if (loaded) loaded.relayCall(remote, role, seconds, ok);
      else later((metrics) => metrics.relayCall(remote, role, seconds, ok));
    },
    contentLookup: (collection, outcome) => {
      if (loaded) loaded.contentLookup(collection, outcome);
      else later((metrics) => metrics.contentLookup(collection, outcome));
    },
    render: async () => (await load()).render(),
    close: () => {
      closed = true;
      loaded?.close();
    },
  };
}

/** A cache's observer that forwards to the loaded metrics, or keeps its events until then. */
function deferredCache(
  current: () => AppMetrics | undefined,
  later: (event: Replay) => void,
  labels: CacheLabels,
): (event: CacheEvent) => void {
  let onEvent: ((event: CacheEvent) => void) | undefined;
  const of = (metrics: AppMetrics) => (onEvent ??= metrics.cache(labels));
  return (event) => {
    const loaded = current();
    if (loaded) of(loaded)(event);
    else later((metrics) => of(metrics)(event));
  };
}

/** A service's observer that forwards to the loaded metrics, or keeps its events until then. */
function deferredService(
  current: () => AppMetrics | undefined,
  later: (event: Replay) => void,
  name: string,
  role: string,
): ServiceObserver {
  let observer: ServiceObserver | undefined;
  const of = (metrics: AppMetrics) => (observer ??= metrics.service(name, role));
  const forward = (event: (observer: ServiceObserver) => void) => {
    const metrics = current();
    if (metrics) event(of(metrics));
    else later((loaded) => event(of(loaded)));
  };
  // The two events of every engine call go straight to the loaded observer: no closure each.
  return {
    onBatch: (size, pending) => {
      const metrics = current();
      if (metrics) of(metrics).onBatch(size, pending);
      else forward((target) => target.onBatch(size, pending));
    },
    onEngine: (seconds, ok) => {
      const metrics = current();
      if (metrics) of(metrics).onEngine(seconds, ok);
      else forward((target) => target.onEngine(seconds, ok));
    },
    watchQueue: (depth) => forward((target) => target.watchQueue(depth)),
  };
}
