import type { Logger } from 'pino';
import type { Engine, InputKind, Role } from '../engines/contract.js';
import type { CacheEvent, ServiceObserver } from '../metrics/observer.js';
import type { CallOptions, RoleIO, Service, ServiceResult } from '../registry/types.js';
import { Batcher } from './batcher.js';
import { cacheKeyFunction } from './cache-key.js';
import type { CacheStore } from './cache-store.js';
import { type CacheEntry, type Call, withCache } from './cached.js';
import { dedupeBatch, engineBatchCall } from './engine-call.js';

export type ProcessorKind = 'batch' | 'single' | 'minimal';

export interface ServiceSpec<R extends Role> {
  name: string;
  role: R;
  engine: Engine;
  engineName: string;
  inputKind: InputKind;
  processor: ProcessorKind;
  batchSize: number;
  maxWaitMs: number;
  maxQueue: number;
  maxConcurrentBatches: number;
  /** The cache store, or undefined when caching is off (size -1 or 0, or a minimal processor). */
  cache: CacheStore<CacheEntry<RoleIO[R]['result']>> | undefined;
  cacheKeyFields: readonly string[];
  logger: Logger;
  /** Metrics of the batches and engine calls (optional: none without metrics). */
  observer?: ServiceObserver | undefined;
  /** Cache hits and misses (optional). */
  onCacheEvent?: ((event: CacheEvent) => void) | undefined;
}

/** The engine call, timed for the observer when there is one. */
function observed<A extends unknown[], T>(
  run: (...args: A) => Promise<T>,
  observer: ServiceObserver | undefined,
): (...args: A) => Promise<T> {
  if (!observer) return run;
  return async (...args) => {
    const started = performance.now();
    let ok = false;
    try {
      const result = await run(...args);
      ok = true;
      return result;
    } finally {
      observer.onEngine((performance.now() - started) / 1000, ok);
    }
  };
}

/** A service plus what the app needs to shut it down. */
export interface BuiltService<R extends Role> extends Service<R> {
  close(): Promise<void>;
}

const now = () => Date.now() / 1000;

/**
 * Composes a service around one engine method (STYLE item 2): the engine call, then batching
 * (batch processor) and caching (unless minimal). Options are checked here, once.
 */
export function buildService<R extends Role>(spec: ServiceSpec<R>): BuiltService<R> {
  type Req = RoleIO[R]['request'];
  type Res = RoleIO[R]['result'];
  const engineCall = observed(engineBatchCall(spec.engine, spec.role, spec.name), spec.observer);
  const key = cacheKeyFunction(spec.role, spec.name, spec.cacheKeyFields);
  const log = spec.logger;
  let batcher: Batcher<Req, Res> | undefined;
  let call: Call<Req, Res>;

  if (spec.processor === 'batch') {
    batcher = new Batcher<Req, Res>({
      maxSize: spec.batchSize,
      maxWaitMs: spec.maxWaitMs,
      maxQueue: spec.maxQueue,
      maxConcurrent: spec.maxConcurrentBatches,
      run: dedupeBatch(engineCall, key),
      onBatch: (size, pending) => {
        spec.observer?.onBatch(size, pending);
        log.debug({ size, pending }, 'processing batch');
      },
    });
    const b = batcher;
    spec.observer?.watchQueue(() => b.pending);
    call = async (request, options?: CallOptions) => ({
      value: await b.submit(request, options?.signal),
      cached: false,
      timestamp: now(),
    });
  } else {
    call = async (request) => {
      const [value] = await engineCall([request]);
      return { value: value as Res, cached: false, timestamp: now() };
    };
  }
  const cached =
    spec.cache && spec.processor !== 'minimal'
      ? withCache(call, {
          store: spec.cache,
          key,
          onStoreError: (error) => log.warn({ err: error }, 'cache store failed'),
          onLookup: spec.onCacheEvent,
        })
      : undefined;
  const finalCall = cached?.call ?? call;
  return {
    name: spec.name,
    role: spec.role,
    inputKind: spec.inputKind,
    engineName: spec.engineName,
    call: (request: Req, options?: CallOptions): Promise<ServiceResult<Res>> =>
      finalCall(request, options),
    ...(cached === undefined ? {} : { cachedNow: cached.cachedNow }),
    close: async () => {
      await batcher?.close();
      await spec.cache?.close();
    },
  };
}
