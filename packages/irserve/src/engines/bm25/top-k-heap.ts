/**
 * A bounded min-heap of (score, doc) in typed arrays, keeping the k best documents. Order:
 * higher score first; on equal scores the lower document number wins (Lucene's tie-break).
 */
export class TopKHeap {
  readonly capacity: number;
  readonly #scores: Float64Array;
  readonly #docs: Int32Array;
  #size = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#scores = new Float64Array(capacity);
    this.#docs = new Int32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  get full(): boolean {
    return this.#size === this.capacity;
  }

  /** The score a new document must beat once the heap is full. */
  get threshold(): number {
    return this.#size === this.capacity ? this.#scores[0]! : -Infinity;
  }

  /**
   * Offers a document; documents must come in increasing document order (doc-at-a-time), so
   * one that only ties the threshold loses.
   */
  offer(doc: number, score: number): void {
    if (this.#size < this.capacity) {
      this.#scores[this.#size] = score;
      this.#docs[this.#size] = doc;
      this.#up(this.#size++);
    } else if (score > this.#scores[0]!) {
      this.#scores[0] = score;
      this.#docs[0] = doc;
      this.#down(0);
    }
  }

  /** Documents and scores, best first; empties the heap. */
  drain(): { docs: Int32Array; scores: Float64Array } {
    const n = this.#size;
    const docs = new Int32Array(n);
    const scores = new Float64Array(n);
    for (let i = n - 1; i >= 0; i--) {
      docs[i] = this.#docs[0]!;
      scores[i] = this.#scores[0]!;
      this.#size--;
      this.#scores[0] = this.#scores[this.#size]!;
      this.#docs[0] = this.#docs[this.#size]!;
      this.#down(0);
    }
    return { docs, scores };
  }

  /** Whether entry i ranks below entry j. */
  #worse(i: number, j: number): boolean {
    const a = this.#scores[i]!;
    const b = this.#scores[j]!;
    return a < b || (a === b && this.#docs[i]! > this.#docs[j]!);
  }

  #swap(i: number, j: number): void {
    const s = this.#scores[i]!;
    this.#scores[i] = this.#scores[j]!;
    this.#scores[j] = s;
    const d = this.#docs[i]!;
    this.#docs[i] = this.#docs[j]!;
    this.#docs[j] = d;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#size;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.#worse(right, left) ? right : left;
      if (!this.#worse(child, i)) return;
      this.#swap(i, child);
      i = child;
    }
  }
}
