import type { CacheStore, CacheStoreOptions } from './cache-store.js';
import { decodeValue, encodeValue } from './kv-codec.js';
import type { KvConnection } from './kv-connection.js';
import type { KeyScope } from './key-scope.js';

/** Default key prefix (spec "Store key prefix"). */
export const DEFAULT_PREFIX = 'servicecache:';

/** Score for entries without expiry: after every expiring entry, in insertion order. */
const NO_EXPIRY_BASE = 1e15;

/**
 * A cache store in a Redis-protocol server. Each value is one key `<prefix><key>` written with
 * its TTL in the same command (`SET ... PX`). The size budget is kept approximately with a sorted
 * set per namespace (`<prefix><namespace>:__index`) scored by expiry time: past `capacity`
 * entries the soonest-expiring (oldest) are deleted. A failing or slow store never throws: it
 * answers as a miss and the connection records the outage.
 */
export class RedisStore<V> implements CacheStore<V> {
  readonly #connection: KvConnection;
  readonly #prefix: string;
  readonly #index: string;
  readonly #options: CacheStoreOptions;
  readonly #scope: KeyScope | undefined;

  /**
   * With a `scope`, every key carries the fingerprint of what determines the answers; until
   * it is settled (the engine has not started) the store neither reads nor writes. The size
   * index stays one per namespace, so a changed service's new entries push the old ones out.
   */
  constructor(
    connection: KvConnection,
    options: CacheStoreOptions & { prefix?: string; namespace: string; scope?: KeyScope },
  ) {
    this.#connection = connection;
    this.#prefix = options.prefix ?? DEFAULT_PREFIX;
    this.#index = `${this.#prefix}${options.namespace}:__index`;
    this.#options = options;
    this.#scope = options.scope;
  }

  /** The key in the store; undefined while the scope is not settled. */
  #fullKey(key: string): string | undefined {
    if (this.#scope === undefined) return this.#prefix + key;
    return this.#scope.settled ? this.#prefix + this.#scope.apply(key) : undefined;
  }

  async get(key: string): Promise<V | undefined> {
    const fullKey = this.#fullKey(key);
    if (fullKey === undefined) return undefined;
    const text = await this.#run(() => this.#connection.client.get(fullKey));
    return typeof text === 'string' ? (decodeValue(text) as V) : undefined;
  }

  async put(key: string, value: V, ttlSeconds?: number): Promise<void> {
    const ttl = ttlSeconds ?? this.#options.ttlSeconds;
    const fullKey = this.#fullKey(key);
    if (fullKey === undefined) return;
    const text = encodeValue(value);
    const score = ttl >= 0 ? Date.now() + ttl * 1000 : NO_EXPIRY_BASE + Date.now();
    await this.#run(async () => {
      const size = this.#connection.cluster
        ? await this.#putSpread(fullKey, text, ttl, score)
        : await this.#putAtomic(fullKey, text, ttl, score);
      if (this.#options.capacity > 0 && size > this.#options.capacity)
        await this.#evict(size - this.#options.capacity);
    });
  }

  /** One server: value, index entry and index size in one MULTI. */
  async #putAtomic(fullKey: string, text: string, ttl: number, score: number): Promise<number> {
    const multi = this.#connection.client.multi();
    if (ttl >= 0) multi.set(fullKey, text, 'PX', Math.max(1, Math.round(ttl * 1000)));
    else multi.set(fullKey, text);
    multi.zadd(this.#index, score, fullKey);
    multi.zcard(this.#index);
    const results = await multi.exec();
    return Number(results?.[2]?.[1] ?? 0);
  }

  /**
   * A Redis Cluster: the value and the namespace's index live in different hash slots, so a
   * MULTI over both is refused (CROSSSLOT). The value is written first; an index entry without
   * its value (a node lost in between) only makes the size budget count one entry too many.
   */
  async #putSpread(fullKey: string, text: string, ttl: number, score: number): Promise<number> {
    const client = this.#connection.client;
    if (ttl >= 0) await client.set(fullKey, text, 'PX', Math.max(1, Math.round(ttl * 1000)));
    else await client.set(fullKey, text);
    const [, size] = await Promise.all([
      client.zadd(this.#index, score, fullKey),
      client.zcard(this.#index),
    ]);
    return size + 1;
  }

  async remove(key: string): Promise<void> {
    const fullKey = this.#fullKey(key);
    if (fullKey === undefined) return;
    await this.#run(async () => {
      const client = this.#connection.client;
      if (this.#connection.cluster)
        await Promise.all([client.del(fullKey), client.zrem(this.#index, fullKey)]);
      else await client.multi().del(fullKey).zrem(this.#index, fullKey).exec();
    });
  }

  async clear(): Promise<void> {
    await this.#run(async () => {
      const keys = await this.#connection.client.zrange(this.#index, 0, -1);
      await this.#deleteKeys(keys);
      await this.#connection.client.del(this.#index);
    });
  }

  async length(): Promise<number> {
    const count = await this.#run(async () => {
      await this.#connection.client.zremrangebyscore(this.#index, '-inf', Date.now());
      return this.#connection.client.zcard(this.#index);
    });
    return count ?? 0;
  }

  async close(): Promise<void> {
    // The connection belongs to the app's pool, which closes it.
  }

  async #evict(count: number): Promise<void> {
    const popped = await this.#connection.client.zpopmin(this.#index, count);
    const keys = popped.filter((_, index) => index % 2 === 0);
    await this.#deleteKeys(keys);
  }

  /** DEL of many keys: one command on one server; one per key on a cluster (keys span slots). */
  async #deleteKeys(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const client = this.#connection.client;
    if (this.#connection.cluster) await Promise.all(keys.map((key) => client.del(key)));
    else await client.del(...keys);
  }

  async #run<T>(command: () => Promise<T>): Promise<T | undefined> {
    if (!this.#connection.usable) return undefined;
    try {
      return await command();
    } catch (error) {
      this.#connection.markDown(error as Error);
      return undefined;
    }
  }
}
