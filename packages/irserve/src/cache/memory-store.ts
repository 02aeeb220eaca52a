import { LRUCache } from 'lru-cache';
import type { CacheStore, CacheStoreOptions } from './cache-store.js';

/** Told when an entry leaves the store by itself: pushed out by size, or aged past its TTL. */
export type EvictionListener = (reason: 'evicted' | 'expired') => void;

/**
 * In-memory LRU store with TTL (lru-cache). Values are kept by reference: callers must not
 * mutate what they put or get.
 */
export class MemoryStore<V extends object = object> implements CacheStore<V> {
  readonly #lru: LRUCache<string, V>;
  readonly #defaultTtlMs: number;

  constructor(options: CacheStoreOptions & { onEvict?: EvictionListener | undefined }) {
    const { onEvict } = options;
    const unlimited = options.capacity < 0;
    this.#defaultTtlMs = options.ttlSeconds < 0 ? 0 : options.ttlSeconds * 1000;
    this.#lru = new LRUCache<string, V>({
      ...(unlimited ? { ttlAutopurge: false } : { max: options.capacity }),
      ttl: this.#defaultTtlMs,
      // lru-cache needs some bound; unlimited stores are bounded by memory only.
      ...(unlimited && this.#defaultTtlMs === 0
        ? { maxSize: Number.MAX_SAFE_INTEGER, sizeCalculation: () => 1 }
        : {}),
      ...(unlimited && this.#defaultTtlMs > 0 ? { ttlAutopurge: true } : {}),
      ...(onEvict
        ? {
            dispose: (_value: V, _key: string, reason: LRUCache.DisposeReason) => {
              if (reason === 'evict') onEvict('evicted');
              else if (reason === 'expire') onEvict('expired');
            },
          }
        : {}),
    });
  }

  async get(key: string): Promise<V | undefined> {
    return this.#lru.get(key);
  }

  getNow(key: string): V | undefined {
    return this.#lru.get(key);
  }

  async put(key: string, value: V, ttlSeconds?: number): Promise<void> {
    const ttl =
      ttlSeconds === undefined ? this.#defaultTtlMs : ttlSeconds < 0 ? 0 : ttlSeconds * 1000;
    this.#lru.set(key, value, { ttl });
  }

  async remove(key: string): Promise<void> {
    this.#lru.delete(key);
  }

  async clear(): Promise<void> {
    this.#lru.clear();
  }

  async length(): Promise<number> {
    // `size` counts entries not yet purged; purge first so expired ones are not counted.
    this.#lru.purgeStale();
    return this.#lru.size;
  }

  async close(): Promise<void> {
    this.#lru.clear();
  }
}
