import type { Logger } from 'pino';
import type { Capability, Engine, InputKind, Scores } from '../engines/contract.js';
import type { CacheEvent, ServiceObserver } from '../metrics/observer.js';
import type { BuiltService, CallOptions, RoleIO, Service } from '../registry/types.js';
import { Batcher } from './batcher.js';
import { cacheKeyFunction } from './cache-key.js';
import type { CacheStore } from '../cache/cache-store.js';
import { type CacheEntry, type Call, withCache } from '../cache/cached.js';
import { deadlineSignal, type DeadlineSignal } from '../util/deadline.js';
import { type CheckedBatchCall, dedupeBatch, engineBatchCall } from './engine-call.js';
import { unwrapItem } from './item-failure.js';
import type { SharedDeadlineSignal } from '../util/shared-deadlines.js';
import { raceAbort, type Abortable } from '../util/abort-scope.js';

export type ProcessorKind = 'batch' | 'single' | 'minimal';

export interface ServiceSpec<R extends Capability> {
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
  /** Request fields left out of the cache key on purpose (`cache_key_exclude`). */
  cacheKeyExclude?: readonly string[];
  /** Longest a call may take, in milliseconds, unless the request asks for less; none if absent. */
  timeoutMs?: number;
  logger: Logger;
  /**
   * Whether the engine's results are valid by construction (irserve's rank-based fusion rules,
   * whose inputs were checked): they are then not checked again. Default false.
   */
  trustedResults?: boolean;
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
  // Handlers on the run's promise rather than an async wrapper: one promise less per call.
  return (...args) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    return run(...args).then(
      (result) => {
        observer.onEngine(seconds(), true);
        return result;
      },
      (error: unknown) => {
        observer.onEngine(seconds(), false);
        throw error;
      },
    );
  };
}

const now = () => Date.now() / 1000;

/** The earlier of the request's deadline and the service's own timeout from now. */
function effectiveDeadline(options: CallOptions | undefined, timeoutMs: number | undefined) {
  const own = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  const asked = options?.deadline;
  if (own === undefined) return asked;
  return asked === undefined ? own : Math.min(asked, own);
}

/** An unchecked engine's own `resultKeys`, bound; undefined for any other. */
function resultKeysOf(engine: Engine, checked: boolean) {
  if (checked || typeof engine.resultKeys !== 'function') return undefined;
  return (scores: object) => engine.resultKeys?.(scores as Scores);
}

/** The error a call reports: its own ERR_TIMEOUT where a shared deadline passed. */
function ownError(shared: SharedDeadlineSignal | undefined, error: unknown): unknown {
  return shared === undefined ? error : shared.ownError(error);
}

/**
 * Composes a service around one engine method (STYLE item 2): the engine's per-request check,
 * caching (unless minimal), the deadline, then batching (batch processor) and the engine call.
 * Options are checked here, once.
 *
 * @example
 * const service = buildService({ name: 'bm25', role: 'search', engine, ...options });
 * await service.call({ query: 'q', limit: 10 }, { deadline: Date.now() + 1000 });
 */
export function buildService<R extends Capability>(spec: ServiceSpec<R>): BuiltService<R> {
  const checked = spec.trustedResults !== true;
  // The keys of the score maps the check reads (checkedKeys), kept as long as the maps are.
  const keysOf =
    checked && (spec.role === 'search' || spec.role === 'fuse')
      ? new WeakMap<object, readonly string[]>()
      : undefined;
  // Results not checked: the keys the engine itself kept, if it keeps any (fusion rules).
  const checkedKeys = keysOf
    ? (scores: object) => keysOf.get(scores)
    : resultKeysOf(spec.engine, checked);
  const engineCall = observed(
    engineBatchCall(spec.engine, spec.role, spec.name, checked, keysOf),
    spec.observer,
  );
  const key = cacheKeyFunction(spec.role, spec.name, spec.cacheKeyExclude ?? []);
  const { run, batcher } = processorRun(spec, engineCall, key);
  const call = withDeadline(run, spec.timeoutMs, `service "${spec.name}"`);
  const log = spec.logger;
  const cached =
    spec.cache && spec.processor !== 'minimal'
      ? withCache(call, {
          store: spec.cache,
          key,
          onStoreError: (error) => log.warn({ err: error }, 'cache store failed'),
          onLookup: spec.onCacheEvent,
        })
      : undefined;
  return {
    name: spec.name,
    role: spec.role,
    inputKind: spec.inputKind,
    engineName: spec.engineName,
    call: checkedFirst(spec.engine, spec.role, cached?.call ?? call),
    ...(cached === undefined ? {} : { cachedNow: cached.cachedNow }),
    ...(checkedKeys === undefined ? {} : { checkedKeys }),
    close: async () => {
      await batcher?.close();
      await spec.cache?.close();
    },
  };
}

/** A request to the engine with its signal: through a batcher, or on its own. */
type Run<R extends Capability> = (
  request: RoleIO[R]['request'],
  signal: Abortable | undefined,
) => Promise<RoleIO[R]['result']>;

/** How one request reaches the engine: through a batcher (batch processor) or on its own. */
function processorRun<R extends Capability>(
  spec: ServiceSpec<R>,
  engineCall: CheckedBatchCall<R>,
  key: (request: RoleIO[R]['request']) => string,
): { run: Run<R>; batcher?: Batcher<RoleIO[R]['request'], RoleIO[R]['result']> } {
  if (spec.processor !== 'batch') {
    // Alone, the request ends at its signal; the engine call it leaves behind is the engine's.
    return {
      run: async (request, signal) =>
        unwrapItem((await raceAbort(engineCall([request], { signal }), signal))[0]!),
    };
  }
  const log = spec.logger;
  const batcher = new Batcher<RoleIO[R]['request'], RoleIO[R]['result']>({
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
  spec.observer?.watchQueue(() => batcher.pending);
  return { run: (request, signal) => batcher.submit(request, signal), batcher };
}

/**
 * A call that ends at the earlier of the request's deadline and the service's timeout, with the
 * request's signal. The stages of a pipeline that end at the same time share one signal
 * (`options.deadlines`).
 */
function withDeadline<R extends Capability>(
  run: Run<R>,
  timeoutMs: number | undefined,
  what: string,
): Call<RoleIO[R]['request'], RoleIO[R]['result'], CallOptions> {
  return async (request, options) => {
    const at = effectiveDeadline(options, timeoutMs);
    const shared =
      at === undefined ? undefined : options?.deadlines?.acquire(at, options.signal, what);
    const deadline: DeadlineSignal = shared ?? deadlineSignal(at, options?.signal, what);
    try {
      return { value: await run(request, deadline.signal), cached: false, timestamp: now() };
    } catch (error) {
      throw ownError(shared, error);
    } finally {
      deadline.dispose();
    }
  };
}

/** `call` after the engine's own per-request check, when it has one (a refusal rejects). */
function checkedFirst<R extends Capability>(
  engine: Engine,
  role: R,
  call: Call<RoleIO[R]['request'], RoleIO[R]['result'], CallOptions>,
): Service<R>['call'] {
  const check = engine.checkRequest?.bind(engine);
  if (!check) return call;
  return (request, options) => {
    try {
      check(role, request);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return call(request, options);
  };
}
