import { knownIrserveError } from '../errors.js';
import type { Abortable } from '../util/abort-scope.js';
import type { CacheStore } from './cache-store.js';

/** A call's result as the cache hands it on. */
export interface CachedResult<T> {
  value: T;
  /** True when served from the cache. */
  cached: boolean;
  /** Unix time in seconds (fractional) when the value was computed. */
  timestamp: number;
}

/** What the cache reads of a call's options; the rest pass through to the wrapped call. */
export interface CallerOptions {
  /** Aborted: the caller went away (a follower of a shared computation stops waiting). */
  signal?: Abortable | undefined;
}

/**
 * A call the cache wraps and returns: a service call (with the registry's `CallOptions`), a
 * content lookup, a relayed call.
 */
export type Call<Req, Res, Options extends CallerOptions = CallerOptions> = (
  request: Req,
  options?: Options,
) => Promise<CachedResult<Res>>;

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
export interface CachedCall<Req, Res, Options extends CallerOptions> {
  call: Call<Req, Res, Options>;
  /** The cached result when the store holds it and can answer at once; else undefined. */
  cachedNow: (request: Req) => CachedResult<Res> | undefined;
}

/**
 * Wraps a call with a cache: hits return `cached: true` with the original timestamp; misses are
 * computed once even when many identical requests arrive together (single flight); errors are
 * never cached. A failing store never fails a request.
 */
export function withCache<Req, Res, Options extends CallerOptions = CallerOptions>(
  next: Call<Req, Res, Options>,
  options: CacheWrapperOptions<Req, Res>,
): CachedCall<Req, Res, Options> {
  const inFlight = new Map<string, Promise<CachedResult<Res>>>();
  const { key } = options;
  const hit = (cacheKey: string) => hitNow(options, cacheKey);
  const lead = (cacheKey: string, request: Req, callOptions?: Options) => {
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
): CachedResult<Res> | undefined {
  const now = store.getNow?.(cacheKey);
  if (now === undefined) return undefined;
  onLookup?.('hit');
  return { value: now.value, cached: true, timestamp: now.timestamp };
}

/** The stored entry for `cacheKey`, or the call's result, stored. A failing store is skipped. */
async function lookupOrCompute<Req, Res, Options extends CallerOptions>(
  { store, onStoreError, onLookup }: CacheWrapperOptions<Req, Res>,
  next: Call<Req, Res, Options>,
  cacheKey: string,
  request: Req,
  callOptions?: Options,
): Promise<CachedResult<Res>> {
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
