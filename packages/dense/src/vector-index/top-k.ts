/**
 * Keeps the `k` best (highest) scores seen so far in a binary min-heap on typed arrays, so a scan
 * over millions of candidates allocates nothing per candidate. Reused across queries by `reset`.
 */
export class TopK {
  readonly k: number;
  #size = 0;
  readonly #scores: Float32Array;
  readonly #labels: Int32Array;

  constructor(k: number) {
    this.k = k;
    this.#scores = new Float32Array(k);
    this.#labels = new Int32Array(k);
  }

  reset(): void {
    this.#size = 0;
  }

  /** The score a candidate must beat to enter (-Infinity until the heap is full). */
  get threshold(): number {
    return this.#size < this.k ? -Infinity : this.#scores[0]!;
  }

  push(score: number, label: number): void {
    const scores = this.#scores;
    const labels = this.#labels;
    if (this.#size < this.k) {
      let i = this.#size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (scores[parent]! <= score) break;
        scores[i] = scores[parent]!;
        labels[i] = labels[parent]!;
        i = parent;
      }
      scores[i] = score;
      labels[i] = label;
    } else if (score > scores[0]!) {
      this.#siftDown(score, label);
    }
  }

  #siftDown(score: number, label: number): void {
    const scores = this.#scores;
    const labels = this.#labels;
    const n = this.#size;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && scores[child + 1]! < scores[child]!) child++;
      if (scores[child]! >= score) break;
      scores[i] = scores[child]!;
      labels[i] = labels[child]!;
      i = child;
    }
    scores[i] = score;
    labels[i] = label;
  }

  /** Writes the results best-first into `labels`/`scores` at `offset` (k slots; -1 pads). */
  drainInto(labels: Int32Array, scores: Float32Array, offset: number): void {
    const n = this.#size;
    const order = Array.from({ length: n }, (_, i) => i);
    const s = this.#scores;
    const l = this.#labels;
    order.sort((a, b) => s[b]! - s[a]! || l[a]! - l[b]!);
    for (let i = 0; i < this.k; i++) {
      const j = order[i];
      labels[offset + i] = j === undefined ? -1 : l[j]!;
      scores[offset + i] = j === undefined ? -Infinity : s[j]!;
    }
    this.#size = 0;
  }
}
