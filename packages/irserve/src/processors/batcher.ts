import { IrserveError } from '../errors.js';
import { abortReason } from '../federation/backoff.js';

export interface BatcherOptions<Req, Res> {
  /** Largest batch handed to `run`. */
  maxSize: number;
  /** Milliseconds to wait for a batch to fill, counted from its first item. */
  maxWaitMs: number;
  /** Items allowed to wait; past it `submit` fails fast with ERR_OVERLOADED. */
  maxQueue: number;
  /** Batches allowed in flight at once. */
  maxConcurrent: number;
  /** Runs one batch; must resolve to one result per item, in order. */
  run: (items: Req[]) => Promise<Res[]>;
  /** Observes each dispatched batch (logging, metrics). */
  onBatch?: (size: number, pending: number) => void;
}

interface Waiter<Req, Res> {
  item: Req;
  resolve: (value: Res) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  queuedAt: number;
}

/**
 * Gathers items into batches: a batch leaves when `maxSize` items wait or `maxWaitMs` has passed
 * since its first item. Each item gets its own promise; a missing result rejects only that item.
 */
export class Batcher<Req, Res> {
  readonly #options: BatcherOptions<Req, Res>;
  readonly #queue: Waiter<Req, Res>[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
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

  /** Queues one item; resolves with its result or rejects with its batch's error. */
  submit(item: Req, signal?: AbortSignal): Promise<Res> {
    if (this.#closed)
      return Promise.reject(new IrserveError('ERR_SHUTTING_DOWN', 'the server is shutting down'));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
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
        onAbort: undefined,
        queuedAt: performance.now(),
      };
      if (signal) {
        waiter.onAbort = () => this.#abort(waiter);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#queue.push(waiter);
      this.#schedule();
    });
  }

  /** Stops accepting items, dispatches what waits, and resolves when every batch has settled. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#queue.length > 0 || this.#inFlight.size > 0) {
      this.#clearTimer();
      if (this.#queue.length > 0 && this.#inFlight.size < this.#options.maxConcurrent)
        this.#dispatch();
      else await Promise.race(this.#inFlight);
    }
  }

  #abort(waiter: Waiter<Req, Res>): void {
    const index = this.#queue.indexOf(waiter);
    if (index < 0) return; // already dispatched: the batch result decides
    this.#queue.splice(index, 1);
    waiter.reject(waiter.signal?.reason ?? new Error('aborted'));
  }

  #schedule(): void {
    if (this.#queue.length === 0 || this.#inFlight.size >= this.#options.maxConcurrent) return;
    const waited = performance.now() - this.#queue[0]!.queuedAt;
    if (
      this.#queue.length >= this.#options.maxSize ||
      waited >= this.#options.maxWaitMs ||
      this.#closed
    ) {
      this.#clearTimer();
      this.#dispatch();
      this.#schedule();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#schedule();
    }, this.#options.maxWaitMs - waited);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #dispatch(): void {
    const batch = this.#queue.splice(0, this.#options.maxSize);
    for (const waiter of batch) {
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    }
    this.#options.onBatch?.(batch.length, this.#queue.length);
    const running = this.#runBatch(batch).finally(() => {
      this.#inFlight.delete(running);
      this.#schedule();
    });
    this.#inFlight.add(running);
  }

  async #runBatch(batch: Waiter<Req, Res>[]): Promise<void> {
    let results: Res[];
    try {
      results = await this.#options.run(batch.map((waiter) => waiter.item));
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    batch.forEach((waiter, index) => {
      if (index < results.length) waiter.resolve(results[index] as Res);
      else
        waiter.reject(
          new IrserveError(
            'ERR_ENGINE',
            `batch returned ${results.length} results for ${batch.length} requests`,
          ),
        );
    });
  }
}
