import { onAbort, reasonOf } from '../../util/abort-scope.js';

/**
 * Bounds how many calls run at once. Waiting happens before a call starts, so a call's timeout
 * measures the upstream API, not the time spent queued behind other calls. A call whose signal
 * aborts while it waits leaves the queue without taking a slot: calls nobody waits for any more
 * (their request timed out, its client left) do not hold up the ones behind them.
 */
export class Limiter {
  readonly #max: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('Limiter: max must be >= 1');
    this.#max = max;
  }

  /**
   * Runs `task` when a slot is free, unless `signal` aborts first (rejects with its reason).
   *
   * @example
   * const limiter = new Limiter(4);
   * await Promise.all(urls.map((url) => limiter.run(() => fetch(url))));
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw reasonOf(signal);
    if (this.#active >= this.#max) await this.#turn(signal);
    else this.#active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter so the count never dips below the bound.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }

  /** Resolves when a finishing call hands this one its slot; rejects if `signal` aborts first. */
  #turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const start = () => {
        stopListening?.();
        resolve();
      };
      this.#waiting.push(start);
      // onAbort: an irserve scope's signal keeps its listeners in the scope's own list, so a
      // batch's many queued calls add none to the AbortSignal (Node warns past 10).
      const stopListening =
        signal &&
        onAbort(signal, () => {
          const index = this.#waiting.indexOf(start);
          if (index >= 0) this.#waiting.splice(index, 1);
          reject(reasonOf(signal));
        });
    });
  }
}
