/**
 * Bounds how many calls run at once. Waiting happens before a call starts, so a call's timeout
 * measures the upstream API, not the time spent queued behind other calls.
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
   * Runs `task` when a slot is free.
   *
   * @example
   * const limiter = new Limiter(4);
   * await Promise.all(urls.map((url) => limiter.run(() => fetch(url))));
   */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
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
}
