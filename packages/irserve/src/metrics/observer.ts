/**
 * What the server's parts report for metrics, as small callbacks. The parts (batcher, cache,
 * relays, content) know nothing of Prometheus: they call these when given them, and the
 * `metrics/prometheus.ts` implementation turns the calls into series. Every callback is optional
 * to call sites: an app without metrics passes none.
 */

/** Cache events of one store. `expired` entries aged out; `evicted` ones were pushed out by size. */
export type CacheEvent = 'hit' | 'miss' | 'evicted' | 'expired';

/** Where a cache sits: the service (or `pipeline`, `relay_content`) and its role. */
export interface CacheLabels {
  service: string;
  role: string;
  /** `memory` (the in-process LRU) or `kv` (a Redis-protocol store). */
  store: 'memory' | 'kv';
}

/** The observer of one local service (batching, engine time). */
export interface ServiceObserver {
  /** A batch left the queue: its size and the items still waiting. */
  onBatch(size: number, pending: number): void;
  /** The engine finished a batch (or a single call): seconds spent in it, and whether it threw. */
  onEngine(seconds: number, ok: boolean): void;
  /** Registers a reader of the queue depth, sampled at scrape time. */
  watchQueue(depth: () => number): void;
}

/** Receives the events of every part of one app. */
export interface AppObserver {
  service(name: string, role: string): ServiceObserver;
  cache(labels: CacheLabels): (event: CacheEvent) => void;
  /** One relayed call to a remote: the remote's endpoint, the role, its duration and outcome. */
  relayCall(remote: string, role: string, seconds: number, ok: boolean): void;
  /** One content lookup: `found`, `not_found` or `error`, and whether the cache answered. */
  contentLookup(collection: string, outcome: 'found' | 'not_found' | 'error'): void;
}
