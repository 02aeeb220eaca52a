/**
 * Work started in order, results taken in the same order, at most `limit` in flight: the
 * builders' pipeline (read a chunk, hand it to a thread, write its result) keeps every thread
 * busy while the output stays in input order.
 */
export class OrderedPipeline<T> {
  readonly #limit: number;
  readonly #consume: (value: T) => Promise<void>;
  readonly #pending: Promise<T>[] = [];

  constructor(limit: number, consume: (value: T) => Promise<void>) {
    this.#limit = Math.max(1, limit);
    this.#consume = consume;
  }

  /** Queues `work`; once `limit` are in flight, waits for and consumes the oldest first. */
  async push(work: Promise<T>): Promise<void> {
    // A failure is rethrown when its turn comes; until then it must not count as unhandled.
    work.catch(() => undefined);
    this.#pending.push(work);
    if (this.#pending.length >= this.#limit) await this.#consume(await this.#pending.shift()!);
  }

  /** Consumes everything still in flight, in order. */
  async drain(): Promise<void> {
    while (this.#pending.length > 0) await this.#consume(await this.#pending.shift()!);
  }
}
