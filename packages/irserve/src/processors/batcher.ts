import { IrserveError, knownIrserveError } from '../errors.js';
import { AbortScope, onAbort, reasonOf, type Abortable } from '../util/abort-scope.js';
import { ItemFailure } from './item-failure.js';

/** What a batch run gets besides its items. */
export interface BatchContext {
  /** Aborts when no item of the batch is waited for any more (every one timed out or left). */
  signal: Abortable;
}

export interface BatcherOptions<Req, Res> {
  /** Largest batch handed to `run`. */
  maxSize: number;
  /**
   * Milliseconds an item may wait for its batch to fill, counted from the batch's first item,
   * while earlier batches are in flight. An idle batcher dispatches at once (see `adaptive`).
   */
  maxWaitMs: number;
  /** Items allowed to wait; past it `submit` fails fast with ERR_OVERLOADED. */
  maxQueue: number;
  /** Batches allowed in flight at once. */
  maxConcurrent: number;
  /**
   * Runs one batch; resolves to one result per item, in order. An ItemFailure in place of a
   * result fails that item alone.
   */
  run: (items: Req[], context: BatchContext) => Promise<readonly (Res | ItemFailure)[]>;
  /** Observes each dispatched batch (logging, metrics). */
  onBatch?: (size: number, pending: number) => void;
  /**
   * When a whole batch fails, run its items again one at a time so only the failing item
   * fails (default true). Timeouts and shutdowns are never retried.
   */
  isolateFailures?: boolean;
  /**
   * Dispatch at once (in the same event-loop turn's check phase) when no batch is in flight
   * (default true). False waits `maxWaitMs` for every batch, as RoutIR does.
   */
  adaptive?: boolean;
}

interface Waiter<Req, Res> {
  item: Req;
  resolve: (value: Res) => void;
  reject: (error: unknown) => void;
  signal: Abortable | undefined;
  /** Stops listening to `signal` (set while the item is waited for). */
  stopListening: (() => void) | undefined;
  queuedAt: number;
  /** The batch running this item, once dispatched. */
  flight: Flight<Req, Res> | undefined;
}

interface Flight<Req, Res> {
  waiters: Set<Waiter<Req, Res>>;
  /** Aborts when no item of the batch is waited for any more (the run's `signal`). */
  signal: Abortable;
  /**
   * What aborts `signal`. None for a batch of one item that has a signal of its own:
   * that signal is the batch's (the item leaving is the batch losing its last waiter), which
   * spares a scope per request of a service that is seldom batched.
   */
  ownScope: AbortScope | undefined;
  /** Whether this batch no longer holds one of the `maxConcurrent` slots. */
  released: boolean;
}

/** Abandoned batches (nobody waits, the engine ignores its signal) allowed per slot. */
const ABANDONED_PER_SLOT = 16;

/** Errors that say nothing about one item: retrying the items one by one would not help. */
const NOT_ISOLATED = new Set([
  'ERR_TIMEOUT',
  // A back-end or remote that did not answer in time would only time out again, item by item.
  'ERR_UPSTREAM_TIMEOUT',
  'ERR_SHUTTING_DOWN',
  'ERR_OVERLOADED',
  'ERR_CLIENT_CLOSED',
]);

/**
 * Gathers items into batches. An idle batcher dispatches what is queued at once; while batches
 * are in flight, items wait until `maxSize` are queued or `maxWaitMs` has passed. Each item gets
 * its own promise: a missing or failed result, an abort or a deadline rejects only that item.
 *
 * @example
 * const batcher = new Batcher({ maxSize: 32, maxWaitMs: 100, maxQueue: 1000, maxConcurrent: 1,
 *   run: async (queries: string[]) => queries.map((q) => q.length) });
 * await batcher.submit('hello'); // 5
 */
export class Batcher<Req, Res> {
  readonly #options: BatcherOptions<Req, Res>;
  readonly #queue: Waiter<Req, Res>[] = [];
  readonly #running = new Set<Promise<void>>();
  #active = 0;
  #abandoned = 0;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #closed = false;

  constructor(options: BatcherOptions<Req, Res>) {
    if (!(options.maxSize >= 1)) throw new RangeError('maxSize must be at least 1');
    if (!(options.maxWaitMs >= 0)) throw new RangeError('maxWaitMs must be >= 0');
    if (!(options.maxQueue >= 1)) throw new RangeError('maxQueue must be at least 1');
    if (!(options.maxConcurrent >= 1)) throw new RangeError('maxConcurrent must be at least 1');
    this.#options = options;
  }

  /** Items waiting for a batch. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Batches holding a slot (in flight and waited for). */
  get inFlight(): number {
    return this.#active;
  }

  /** Queues one item; resolves with its result or rejects with its own error. */
  submit(item: Req, signal?: Abortable): Promise<Res> {
    if (this.#closed)
      return Promise.reject(
        new IrserveError('ERR_SHUTTING_DOWN', 'the server is shutting down', { retryAfter: 5 }),
      );
    if (signal?.aborted) return Promise.reject(reasonOf(signal));
    if (this.#queue.length >= this.#options.maxQueue) {
      return Promise.reject(
        new IrserveError(
          'ERR_OVERLOADED',
          `queue full (${this.#options.maxQueue} requests waiting)`,
          { retryAfter: 1 },
        ),
      );
    }
    return new Promise<Res>((resolve, reject) => {
      const waiter: Waiter<Req, Res> = {
        item,
        resolve,
        reject,
        signal,
        stopListening: undefined,
        queuedAt: performance.now(),
        flight: undefined,
      };
      if (signal) {
        waiter.stopListening = onAbort(signal, () => this.#abort(waiter));
      }
      this.#queue.push(waiter);
      this.#schedule();
    });
  }

  /** Stops accepting items, dispatches what waits, and resolves when every batch has settled. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#queue.length > 0 || this.#running.size > 0) {
      this.#clearTimers();
      if (this.#queue.length > 0 && this.#active < this.#options.maxConcurrent) this.#dispatch();
      else if (this.#active === 0 && this.#queue.length === 0)
        return; // only abandoned batches
      else await Promise.race(this.#running);
    }
  }

  #abort(waiter: Waiter<Req, Res>): void {
    const reason = waiter.signal ? reasonOf(waiter.signal) : new Error('aborted');
    const flight = waiter.flight;
    if (flight === undefined) {
      const index = this.#queue.indexOf(waiter);
      if (index >= 0) this.#queue.splice(index, 1);
      waiter.reject(reason);
      return;
    }
    if (!flight.waiters.delete(waiter)) return;
    waiter.reject(reason);
    if (flight.waiters.size === 0) this.#abandon(flight, reason);
  }

  /** Nobody waits for `flight` any more: tell the engine, and free its slot (bounded). */
  #abandon(flight: Flight<Req, Res>, reason: Error): void {
    flight.ownScope?.abort(reason);
    if (flight.released) return;
    if (this.#abandoned >= ABANDONED_PER_SLOT * this.#options.maxConcurrent) return;
    flight.released = true;
    this.#abandoned++;
    this.#active--;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#queue.length === 0 || this.#active >= this.#options.maxConcurrent) return;
    const waited = performance.now() - this.#queue[0]!.queuedAt;
    const { maxSize, maxWaitMs, adaptive = true } = this.#options;
    if (this.#queue.length >= maxSize || waited >= maxWaitMs || this.#closed) {
      this.#dispatch();
      this.#schedule();
      return;
    }
    if (adaptive && this.#active === 0) {
      // Idle engine: go now, but after this turn's I/O so requests that arrived together
      // (one TCP read, one /batch) still share a batch.
      this.#immediate ??= setImmediate(() => {
        this.#immediate = undefined;
        if (this.#active === 0 && this.#queue.length > 0) this.#dispatch();
        this.#schedule();
      });
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, maxWaitMs - waited);
  }

  #clearTimers(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  #dispatch(): void {
    this.#clearTimers();
    const batch = this.#queue.splice(0, this.#options.maxSize);
    let ownScope: AbortScope | undefined;
    const own = batch.length === 1 ? batch[0]!.signal : undefined;
    const flight: Flight<Req, Res> = {
      waiters: new Set(batch),
      signal: own ?? (ownScope = new AbortScope()),
      ownScope,
      released: false,
    };
    for (const waiter of batch) waiter.flight = flight;
    this.#active++;
    this.#options.onBatch?.(batch.length, this.#queue.length);
    const running = this.#runBatch(flight, batch).finally(() => {
      this.#running.delete(running);
      if (flight.released) this.#abandoned--;
      else this.#active--;
      flight.released = true;
      this.#schedule();
    });
    this.#running.add(running);
  }

  async #runBatch(flight: Flight<Req, Res>, batch: Waiter<Req, Res>[]): Promise<void> {
    let results: readonly (Res | ItemFailure)[];
    try {
      results = await this.#options.run(
        batch.map((waiter) => waiter.item),
        { signal: flight.signal },
      );
    } catch (error) {
      if (this.#shouldIsolate(flight, batch, error)) return this.#runOneByOne(flight, batch);
      for (const waiter of batch) this.#settle(flight, waiter, new ItemFailure(error));
      return;
    }
    batch.forEach((waiter, index) => {
      const result =
        index < results.length
          ? results[index]
          : new ItemFailure(
              new IrserveError(
                'ERR_ENGINE',
                `batch returned ${results.length} results for ${batch.length} requests`,
              ),
            );
      this.#settle(flight, waiter, result as Res | ItemFailure);
    });
  }

  #shouldIsolate(flight: Flight<Req, Res>, batch: Waiter<Req, Res>[], error: unknown): boolean {
    if (this.#options.isolateFailures === false || flight.signal.aborted) return false;
    const code = knownIrserveError(error)?.code;
    return flight.waiters.size > 1 && batch.length > 1 && !(code && NOT_ISOLATED.has(code));
  }

  /** Retries each still-waited item alone, one after another (at most one call per item). */
  async #runOneByOne(flight: Flight<Req, Res>, batch: Waiter<Req, Res>[]): Promise<void> {
    for (const waiter of batch) {
      if (!flight.waiters.has(waiter)) continue;
      const signal = waiter.signal ?? flight.signal;
      let result: Res | ItemFailure;
      try {
        const results = await this.#options.run([waiter.item], { signal });
        result =
          results.length > 0
            ? (results[0] as Res | ItemFailure)
            : new ItemFailure(new IrserveError('ERR_ENGINE', 'batch returned no result'));
      } catch (error) {
        result = new ItemFailure(error);
      }
      this.#settle(flight, waiter, result);
    }
  }

  #settle(flight: Flight<Req, Res>, waiter: Waiter<Req, Res>, result: Res | ItemFailure): void {
    if (!flight.waiters.delete(waiter)) return; // abandoned: already rejected
    waiter.stopListening?.();
    if (result instanceof ItemFailure) waiter.reject(result.error);
    else waiter.resolve(result);
  }
}
