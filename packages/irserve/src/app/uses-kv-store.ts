import type { IrserveConfig } from '../config/schema.js';
import { isKvStore } from '../cache/create-store.js';

/**
 * Whether any cache of the config lives in a Redis-protocol store, so the Redis client must be
 * loaded. Covers every place `createStore` is given a URL or client settings.
 *
 * @example
 * usesKvStore(validateConfig({ pipeline_cache_kv_url: 'redis://127.0.0.1:6379' })) // true
 */
export function usesKvStore(config: IrserveConfig): boolean {
  return (
    config.services.some((service) =>
      isKvStore({ kvUrl: service.cache_kv_url, kvKwargs: service.cache_kv_kwargs }),
    ) ||
    isKvStore({ kvUrl: config.pipeline_cache_kv_url, kvKwargs: config.pipeline_cache_kv_kwargs }) ||
    isKvStore({
      kvUrl: config.relay_content_cache_kv_url,
      kvKwargs: config.relay_content_cache_kv_kwargs,
    })
  );
}
