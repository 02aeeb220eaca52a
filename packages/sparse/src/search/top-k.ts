/**
 * The k best passages seen so far: a binary min-heap whose root is the worst kept entry. Ties
 * on score go to the lower passage number, so every search strategy returns the same list.
 */
export class TopK {
  readonly k: number;
  readonly #scores: Float64Array;
  readonly #ids: Int32Array;
  #size = 0;

  constructor(k: number) {
    this.k = k;
    this.#scores = new Float64Array(k);
    this.#ids = new Int32Array(k);
  }

  get size(): number {
    return this.#size;
  }

  get full(): boolean {
    return this.#size === this.k;
  }

  /** The k-th best score (the one to beat), or -Infinity while fewer than k are kept. */
  get threshold(): number {
    return this.full ? this.#scores[0]! : -Infinity;
  }

  /**
   * Keeps `(score, id)` if it is among the k best.
   *
   * @example const top = new TopK(2); top.offer(3, 7); top.offer(5, 1); top.sorted().ids // [1, 7]
   */
  offer(score: number, id: number): void {
    if (this.k === 0) return;
    if (this.#size < this.k) {
      this.#scores[this.#size] = score;
      this.#ids[this.#size] = id;
      this.#siftUp(this.#size++);
      return;
    }
    const rootScore = this.#scores[0]!;
    if (score < rootScore || (score === rootScore && id > this.#ids[0]!)) return;
    this.#scores[0] = score;
    this.#ids[0] = id;
    this.#siftDown(0);
  }

  /** The kept entries, best first. */
  sorted(): { ids: Int32Array; scores: Float64Array } {
    const order = Array.from({ length: this.#size }, (_, i) => i).sort((a, b) =>
      this.#worse(a, b) ? 1 : this.#worse(b, a) ? -1 : 0,
    );
    return {
      ids: Int32Array.from(order, (i) => this.#ids[i]!),
      scores: Float64Array.from(order, (i) => this.#scores[i]!),
    };
  }

  /** Whether entry a ranks below entry b. */
  #worse(a: number, b: number): boolean {
    const sa = this.#scores[a]!;
    const sb = this.#scores[b]!;
    return sa < sb || (sa === sb && this.#ids[a]! > this.#ids[b]!);
  }

  #swap(a: number, b: number): void {
    const s = this.#scores[a]!;
    this.#scores[a] = this.#scores[b]!;
    this.#scores[b] = s;
    const i = this.#ids[a]!;
    this.#ids[a] = this.#ids[b]!;
    this.#ids[b] = i;
  }

  #siftUp(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#worse(at, parent)) return;
      this.#swap(at, parent);
      at = parent;
    }
  }

  #siftDown(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.#size) return;
      const right = left + 1;
      const child = right < this.#size && this.#worse(right, left) ? right : left;
      if (!this.#worse(child, at)) return;
      this.#swap(at, child);
      at = child;
    }
  }
}
