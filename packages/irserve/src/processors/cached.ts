import { knownIrserveError } from '../errors.js';
import type { CallOptions, ServiceResult } from '../registry/types.js';
import type { CacheStore } from './cache-store.js';

/** A service call: the shape every processor wrapper takes and returns. */
export type Call<Req, Res> = (request: Req, options?: CallOptions) => Promise<ServiceResult<Res>>;

/** What a cache stores per key: the value and when it was computed. */
export interface CacheEntry<T> {
  value: T;
  timestamp: number;
}

export interface CacheWrapperOptions<Req, Res> {
  store: CacheStore<CacheEntry<Res>>;
  /** The cache key of a request; built once per service, so it should be cheap. */
  key: (request: Req) => string;
  /** Called when the store fails; the call goes on uncached. */
  onStoreError?: (error: unknown) => void;
  /** Metrics: each hit, and each miss that goes on to compute (coalesced waiters count neither). */
  onLookup?: ((event: 'hit' | 'miss') => void) | undefined;
}

/** A cached call, and its hit path without a promise (in-process stores only). */
export interface CachedCall<Req, Res> {
  call: Call<Req, Res>;
  /** The cached result when the store holds it and can answer at once; else undefined. */
  cachedNow: (request: Req) => ServiceResult<Res> | undefined;
}

/**
 * Wraps a call with a cache: hits return `cached: true` with the original timestamp; misses are
 * computed once even when many identical requests arrive together (single flight); errors are
 * never cached. A failing store never fails a request.
 */
export function withCache<Req, Res>(
  next: Call<Req, Res>,
  options: CacheWrapperOptions<Req, Res>,
): CachedCall<Req, Res> {
  const inFlight = new Map<string, Promise<ServiceResult<Res>>>();
  const { key } = options;
  const hit = (cacheKey: string) => hitNow(options, cacheKey);
  const lead = (cacheKey: string, request: Req, callOptions?: CallOptions) => {
    const promise = lookupOrCompute(options, next, cacheKey, request, callOptions).finally(() =>
      inFlight.delete(cacheKey),
    );
    inFlight.set(cacheKey, promise);
    return promise;
  };

  return {
    call: (request, callOptions) => {
      const cacheKey = key(request);
      // Fast path for in-process stores: a hit needs neither the single-flight map nor awaits.
      const now = hit(cacheKey);
      if (now !== undefined) return Promise.resolve(now);
      const pending = inFlight.get(cacheKey);
      if (!pending) return lead(cacheKey, request, callOptions);
      // The shared computation runs under its first caller's deadline and connection: when that
      // caller left or timed out, a follower still waiting computes for itself.
      return pending.catch((error: unknown) => {
        if (!leaderGaveUp(error) || callOptions?.signal?.aborted) throw error;
        return inFlight.get(cacheKey) ?? lead(cacheKey, request, callOptions);
      });
    },
    cachedNow: (request) => (options.store.getNow === undefined ? undefined : hit(key(request))),
  };
}

/** The store's entry for `cacheKey` when it answers at once (in-process stores); counted a hit. */
function hitNow<Req, Res>(
  { store, onLookup }: CacheWrapperOptions<Req, Res>,
  cacheKey: string,
): ServiceResult<Res> | undefined {
  const now = store.getNow?.(cacheKey);
  if (now === undefined) return undefined;
  onLookup?.('hit');
  return { value: now.value, cached: true, timestamp: now.timestamp };
}

/** The stored entry for `cacheKey`, or the call's result, stored. A failing store is skipped. */
async function lookupOrCompute<Req, Res>(
  { store, onStoreError, onLookup }: CacheWrapperOptions<Req, Res>,
  next: Call<Req, Res>,
  cacheKey: string,
  request: Req,
  callOptions?: CallOptions,
): Promise<ServiceResult<Res>> {
  let hit: CacheEntry<Res> | undefined;
  try {
    hit = await store.get(cacheKey);
  } catch (error) {
    onStoreError?.(error);
  }
  onLookup?.(hit === undefined ? 'miss' : 'hit');
  if (hit !== undefined) return { value: hit.value, cached: true, timestamp: hit.timestamp };
  const result = await next(request, callOptions);
  store
    .put(cacheKey, { value: result.value, timestamp: result.timestamp })
    .catch((error: unknown) => onStoreError?.(error));
  return result; // `cached` as the call says (a relay's remote may have answered from its cache)
}

/** Whether a shared computation failed because its leading caller stopped waiting. */
function leaderGaveUp(error: unknown): boolean {
  const code = knownIrserveError(error)?.code;
  return code === 'ERR_CLIENT_CLOSED' || code === 'ERR_TIMEOUT';
}
