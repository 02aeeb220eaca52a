import type { KvPool } from './kv-connection.js';
import { kvKwargsSchema } from './kv-options.js';
import { DEFAULT_PREFIX, RedisStore } from './redis-store.js';
import { parseKvUrl, redactKvUrl } from './kv-url.js';
import { formatIssues } from '../util/zod-issues.js';
import { IrserveError } from '../errors.js';
import type { CacheStore } from './cache-store.js';
import type { KeyScope } from './key-scope.js';
import { type EvictionListener, MemoryStore } from './memory-store.js';

/** Default store URL (spec: "a local instance on the standard port"). */
export const DEFAULT_KV_URL = 'redis://127.0.0.1:6379';

export interface StoreSettings {
  /** Entries; -1 or 0 disables caching (spec). */
  size: number;
  ttl: number;
  /** External store URL; when set it replaces the in-memory LRU. */
  kvUrl?: string | undefined;
  /** Client settings; given without a URL, the default local store is used. */
  kvKwargs?: Record<string, unknown> | undefined;
  /** Key prefix in an external store (default `servicecache:`). */
  prefix?: string;
  /** Name space inside the prefix (the service name), so services never collide. */
  namespace: string;
  /** Where errors point in the config, e.g. `services[2]`. */
  configPath: string;
  /** The fingerprint external keys carry (services and pipelines); see KeyScope. */
  scope?: KeyScope | undefined;
  /** Metrics: entries the in-memory store drops by itself (external stores evict on their own). */
  onEvict?: EvictionListener | undefined;
}

/**
 * The cache store for a service: none when disabled, the in-memory LRU by default, or a
 * Redis-protocol store when a URL (or client settings) is given. In a key-value store the size
 * is an approximate key budget (see RedisStore).
 */
export function createStore<V extends object>(
  settings: StoreSettings,
  pool: KvPool,
): CacheStore<V> | undefined {
  if (settings.size === 0 || settings.size === -1) return undefined;
  if (!isKvStore(settings)) {
    return new MemoryStore<V>({
      capacity: settings.size,
      ttlSeconds: settings.ttl,
      onEvict: settings.onEvict,
    });
  }
  const url = settings.kvUrl ?? DEFAULT_KV_URL;
  const topology = parseKvUrl(url);
  if (topology === undefined) {
    throw new IrserveError(
      'ERR_CONFIG',
      `${settings.configPath}.cache_kv_url: "${redact(url)}" is not a redis:// or rediss:// URL, a redis+cluster://host:port,host:port URL or a redis+sentinel://host:port,host:port/master URL`,
    );
  }
  const kwargs = kvKwargsSchema.safeParse(settings.kvKwargs ?? {});
  if (!kwargs.success) {
    throw new IrserveError(
      'ERR_CONFIG',
      formatIssues(kwargs.error.issues, 'cache_kv_kwargs')
        .map((line) => `${settings.configPath}.cache_kv_kwargs.${line}`)
        .join('; '),
    );
  }
  const normalisedUrl = topology.kind === 'single' ? topology.url : url;
  return new RedisStore<V>(pool.get(normalisedUrl, kwargs.data), {
    capacity: settings.size,
    ttlSeconds: settings.ttl,
    prefix: settings.prefix ?? DEFAULT_PREFIX,
    namespace: settings.namespace,
    ...(settings.scope ? { scope: settings.scope } : {}),
  });
}

/**
 * Whether settings name an external store (and so need the Redis client).
 *
 * @example
 * isKvStore({ kvUrl: 'redis://127.0.0.1:6379' }) // true
 */
export function isKvStore(settings: { kvUrl?: string | undefined; kvKwargs?: unknown }): boolean {
  return settings.kvUrl !== undefined || settings.kvKwargs !== undefined;
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  return redactKvUrl(url);
}
