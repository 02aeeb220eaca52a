/** The `k` best (id, score) pairs of a stream, kept in a binary min-heap. */
export class TopK {
  readonly ids: Int32Array;
  readonly scores: Float32Array;
  size = 0;

  constructor(readonly k: number) {
    this.ids = new Int32Array(k);
    this.scores = new Float32Array(k);
  }

  /** The score a newcomer must beat once the heap is full. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  push(id: number, score: number): void {
    if (this.k === 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent]! <= score) break;
        this.ids[i] = this.ids[parent]!;
        this.scores[i] = this.scores[parent]!;
        i = parent;
      }
      this.ids[i] = id;
      this.scores[i] = score;
    } else if (score > this.scores[0]!) this.#replaceRoot(id, score);
  }

  #replaceRoot(id: number, score: number): void {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && this.scores[right]! < this.scores[left]! ? right : left;
      if (this.scores[child]! >= score) break;
      this.ids[i] = this.ids[child]!;
      this.scores[i] = this.scores[child]!;
      i = child;
    }
    this.ids[i] = id;
    this.scores[i] = score;
  }

  /** The kept pairs, best first (ties: smaller id first). */
  sorted(): { ids: number[]; scores: number[] } {
    const order = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) => this.scores[b]! - this.scores[a]! || this.ids[a]! - this.ids[b]!,
    );
    return { ids: order.map((i) => this.ids[i]!), scores: order.map((i) => this.scores[i]!) };
  }
}
