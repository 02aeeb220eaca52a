/**
 * Blocks with a positive upper bound, highest bound first: a binary max-heap of block numbers
 * built in linear time, so a query that stops after a few blocks never sorts them all.
 */
export class BlockQueue {
  readonly #heap: Uint32Array;
  #bounds: Float64Array = new Float64Array(0);
  #size = 0;
  /** Every block the last `fill` saw, to zero their bounds afterwards. */
  #touched: Uint32Array;
  #touchedCount = 0;

  constructor(blocks: number) {
    this.#heap = new Uint32Array(blocks);
    this.#touched = new Uint32Array(blocks);
  }

  get size(): number {
    return this.#size;
  }

  /** Queues every block whose bound is positive. */
  fill(bounds: Float64Array): void {
    this.#bounds = bounds;
    this.#size = 0;
    for (let b = 0; b < bounds.length; b++) if (bounds[b]! > 0) this.#heap[this.#size++] = b;
    this.#touched.set(this.#heap.subarray(0, this.#size));
    this.#touchedCount = this.#size;
    for (let i = (this.#size >> 1) - 1; i >= 0; i--) this.#siftDown(i);
  }

  peek(): number {
    return this.#heap[0]!;
  }

  pop(): number {
    const top = this.#heap[0]!;
    this.#heap[0] = this.#heap[--this.#size]!;
    this.#siftDown(0);
    return top;
  }

  /** Zeroes the bounds of every block queued by the last `fill`. */
  clear(bounds: Float64Array): void {
    for (let i = 0; i < this.#touchedCount; i++) bounds[this.#touched[i]!] = 0;
    this.#size = 0;
    this.#touchedCount = 0;
  }

  #siftDown(at: number): void {
    const heap = this.#heap;
    const bounds = this.#bounds;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.#size) return;
      const right = left + 1;
      const child =
        right < this.#size && bounds[heap[right]!]! > bounds[heap[left]!]! ? right : left;
      if (bounds[heap[child]!]! <= bounds[heap[at]!]!) return;
      const swap = heap[at]!;
      heap[at] = heap[child]!;
      heap[child] = swap;
      at = child;
    }
  }
}
