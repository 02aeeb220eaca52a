import type { Logger } from 'pino';
import { IrserveError } from '../errors.js';
import type { CacheStore } from './cache-store.js';
import { MemoryStore } from './memory-store.js';

export interface StoreSettings {
  /** Entries; -1 or 0 disables caching (spec). */
  size: number;
  ttl: number;
  kvUrl?: string | undefined;
  kvKwargs?: Record<string, unknown> | undefined;
  /** Key prefix in an external store. */
  prefix?: string;
}

/**
 * The cache store for a service: none when disabled, the in-memory LRU by default, or an external
 * key-value store when `kvUrl` is set.
 */
export function createStore<V extends object>(
  settings: StoreSettings,
  _logger: Logger,
): CacheStore<V> | undefined {
  if (settings.size === 0 || settings.size === -1) return undefined;
  if (settings.kvUrl !== undefined) {
    throw new IrserveError(
      'ERR_CONFIG',
      `cache_kv_url (${redact(settings.kvUrl)}): external key-value caches are not available in this version of irserve`,
    );
  }
  return new MemoryStore<V>({ capacity: settings.size, ttlSeconds: settings.ttl });
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}
