/**
 * A bounded min-heap of (score, doc) in typed arrays, keeping the k best documents. Order:
 * higher score first; on equal scores the lower document number wins (Lucene's tie-break).
 * Comparisons are written inline: this is on the hot path of every search.
 */
export class TopKHeap {
  capacity: number;
  scores: Float64Array;
  docs: Int32Array;
  size = 0;
  /** The score a new document must beat once the heap is full (-Infinity before). */
  threshold = -Infinity;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.scores = new Float64Array(capacity);
    this.docs = new Int32Array(capacity);
  }

  /**
   * Empties the heap for a search of `capacity` results, keeping its arrays when they are big
   * enough: a search scratch reuses one heap instead of allocating one per query.
   */
  reset(capacity: number): this {
    if (capacity > this.scores.length) {
      this.scores = new Float64Array(capacity);
      this.docs = new Int32Array(capacity);
    }
    this.capacity = capacity;
    this.size = 0;
    this.threshold = -Infinity;
    return this;
  }

  get full(): boolean {
    return this.size === this.capacity;
  }

  /**
   * Offers a document; documents must come in increasing document order (doc-at-a-time), so
   * one that only ties the threshold loses.
   */
  offer(doc: number, score: number): void {
    if (this.size < this.capacity) {
      this.#up(this.size++, doc, score);
      if (this.size === this.capacity) this.threshold = this.scores[0]!;
    } else if (score > this.scores[0]!) {
      this.#down(0, doc, score, this.size);
      this.threshold = this.scores[0]!;
    }
  }

  /** Documents and scores, best first; empties the heap. */
  drain(): { docs: number[]; scores: number[] } {
    const n = this.size;
    const docs = new Array<number>(n);
    const scores = new Array<number>(n);
    for (let i = n - 1; i >= 0; i--) {
      docs[i] = this.docs[0]!;
      scores[i] = this.scores[0]!;
      const last = --this.size;
      if (last > 0) this.#down(0, this.docs[last]!, this.scores[last]!, last);
    }
    this.threshold = -Infinity;
    return { docs, scores };
  }

  /** Places (doc, score) at slot i or above: moves worse parents down. */
  #up(i: number, doc: number, score: number): void {
    const scores = this.scores;
    const docs = this.docs;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const ps = scores[parent]!;
      // Stop when the parent is worse than (below) the new entry.
      if (ps < score || (ps === score && docs[parent]! > doc)) break;
      scores[i] = ps;
      docs[i] = docs[parent]!;
      i = parent;
    }
    scores[i] = score;
    docs[i] = doc;
  }

  /** Places (doc, score) at slot i or below among the first n slots: moves worse children up. */
  #down(i: number, doc: number, score: number, n: number): void {
    const scores = this.scores;
    const docs = this.docs;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let cs = scores[child]!;
      const right = child + 1;
      if (right < n) {
        const rs = scores[right]!;
        if (rs < cs || (rs === cs && docs[right]! > docs[child]!)) {
          child = right;
          cs = rs;
        }
      }
      // Stop when the entry is worse than the worse child.
      if (score < cs || (score === cs && doc > docs[child]!)) break;
      scores[i] = cs;
      docs[i] = docs[child]!;
      i = child;
    }
    scores[i] = score;
    docs[i] = doc;
  }
}
