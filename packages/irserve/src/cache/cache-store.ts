/**
 * The cache store interface (spec "Caching": get, put, remove, clear, length).
 * Capacity -1 means unlimited; ttl -1 means no expiry. Every store runs the conformance suite in
 * `test/cache/cache-store.suite.ts`.
 */
export interface CacheStore<V = unknown> {
  /** The value, or undefined on a miss or after expiry. */
  get(key: string): Promise<V | undefined>;
  /**
   * In-process stores only: the value without a promise, so a cache hit costs no microtask
   * round trips on the hot path. External stores leave it out.
   */
  getNow?(key: string): V | undefined;
  /** Stores a value; `ttlSeconds` overrides the store's default for this entry. */
  put(key: string, value: V, ttlSeconds?: number): Promise<void>;
  remove(key: string): Promise<void>;
  clear(): Promise<void>;
  /** Number of live entries (approximate for external stores). */
  length(): Promise<number>;
  close(): Promise<void>;
}

export interface CacheStoreOptions {
  /** Maximum number of entries; -1 unlimited. 0 is not a store: callers disable caching. */
  capacity: number;
  /** Entry lifetime in seconds; -1 means no expiry. */
  ttlSeconds: number;
}
