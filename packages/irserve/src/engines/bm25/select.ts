/**
 * The top k of a full accumulator array, by bucketing instead of a heap. Exhaustive scoring
 * leaves one score per document; picking the best k with a heap pays a data-dependent branch
 * per document (a coin toss for the branch predictor while the heap fills, and on a small
 * collection most documents match) and log k per replacement and per result. Here one
 * branch-free pass counts documents into linear score buckets below the query's score bound;
 * the buckets from the top down to the one holding the k-th are laid out by a counting sort in
 * a second pass whose branch is rarely taken, and an insertion sort orders each bucket's few
 * documents. The exhaustive search uses it when k is large for the collection (see
 * `SELECT_DOCS_PER_RESULT`).
 */
import type { DocFilter, TopDocs } from './max-score.js';

/**
 * Buckets over [0, bound]: bucket b holds scores in [b, b + 1) / scale, the best in BUCKETS - 2,
 * and the last bucket takes any rounding above the bound. Bucket 0 also holds the documents
 * that do not match, so it is laid out only when the others hold fewer than k documents.
 */
const BUCKETS = 1024;
/** A bucket with more documents than this is ordered by quicksort (insertion sort is quadratic). */
const INSERTION_MAX = 32;

export class BucketSelect {
  readonly #count = new Int32Array(BUCKETS);
  readonly #docs: Int32Array;
  readonly #scores: Float64Array;

  /** For accumulator arrays of up to `numDocs` documents. */
  constructor(numDocs: number) {
    this.#docs = new Int32Array(numDocs);
    this.#scores = new Float64Array(numDocs);
  }

  /**
   * The best `k` documents of `acc[0..n)` with a score above 0 (within `filter`, if given),
   * best first, ties going to the lower document. No score may exceed `bound`.
   *
   * @example
   * new BucketSelect(3).top(Float64Array.of(1, 3, 2), 3, 2, 3) // { docs: [1, 2], scores: [3, 2] }
   */
  top(acc: Float64Array, n: number, k: number, bound: number, filter?: DocFilter): TopDocs {
    if (!(bound > 0)) return { docs: new Int32Array(0), scores: new Float64Array(0) };
    const scale = (BUCKETS - 2) / bound;
    const count = this.#count.fill(0);
    if (filter === undefined) countAll(acc, n, scale, count);
    else countFiltered(acc, n, scale, filter, count);
    const { lowest, widest } = offsets(count, k);
    const total = this.#layOut(acc, n, scale, lowest, filter);
    if (widest <= INSERTION_MAX) insertionSort(this.#docs, this.#scores, 0, total - 1);
    else sortBestFirst(this.#docs, this.#scores, total);
    const found = Math.min(k, total);
    return { docs: this.#docs.slice(0, found), scores: this.#scores.slice(0, found) };
  }

  /**
   * Copies the matching documents of buckets top..lowest to their offsets, in document order;
   * returns how many. Bucket 0 comes last, so skipping its non-matching documents leaves no gap.
   */
  #layOut(
    acc: Float64Array,
    n: number,
    scale: number,
    lowest: number,
    filter: DocFilter | undefined,
  ): number {
    const next = this.#count;
    const docs = this.#docs;
    const scores = this.#scores;
    let total = 0;
    for (let d = 0; d < n; d++) {
      const score = acc[d]!;
      const b = (score * scale) | 0;
      if (
        b >= lowest &&
        score > 0 &&
        (filter === undefined || filter.labels[d] === filter.wanted)
      ) {
        const at = next[b]!++;
        docs[at] = d;
        scores[at] = score;
        total++;
      }
    }
    return total;
  }
}

function countAll(acc: Float64Array, n: number, scale: number, count: Int32Array): void {
  for (let d = 0; d < n; d++) count[(acc[d]! * scale) | 0]!++;
}

/** As `countAll`, documents outside the filter going to bucket 0. */
function countFiltered(
  acc: Float64Array,
  n: number,
  scale: number,
  { labels, wanted }: DocFilter,
  count: Int32Array,
): void {
  for (let d = 0; d < n; d++) count[labels[d] === wanted ? (acc[d]! * scale) | 0 : 0]!++;
}

/**
 * Turns the counts of the buckets to lay out (top down to `lowest`, the one holding the k-th
 * document) into start offsets, best bucket first; at most `widest` documents in one of them.
 */
function offsets(count: Int32Array, k: number): { lowest: number; widest: number } {
  let total = 0;
  let widest = 0;
  let b = BUCKETS - 1;
  for (; b >= 0 && total < k; b--) {
    const c = count[b]!;
    count[b] = total;
    total += c;
    widest = Math.max(widest, c);
  }
  return { lowest: b + 1, widest };
}

/** Sorts the first `n` pairs best first (higher score, then lower document), in place. */
export function sortBestFirst(docs: Int32Array, scores: Float64Array, n: number): void {
  quickSort(docs, scores, 0, n - 1);
}

/** Quicksort down to short runs, which insertion sort finishes (no comparator calls). */
function quickSort(docs: Int32Array, scores: Float64Array, lo: number, hi: number): void {
  while (hi - lo > 16) {
    const mid = (lo + hi) >>> 1;
    const ps = scores[mid]!;
    const pd = docs[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (scores[i]! > ps || (scores[i] === ps && docs[i]! < pd)) i++;
      while (scores[j]! < ps || (scores[j] === ps && docs[j]! > pd)) j--;
      if (i <= j) swap(docs, scores, i++, j--);
    }
    // Recurse into the smaller side, loop on the larger: the stack stays O(log n).
    if (j - lo < hi - i) {
      quickSort(docs, scores, lo, j);
      lo = i;
    } else {
      quickSort(docs, scores, i, hi);
      hi = j;
    }
  }
  insertionSort(docs, scores, lo, hi);
}

function insertionSort(docs: Int32Array, scores: Float64Array, lo: number, hi: number): void {
  for (let i = lo + 1; i <= hi; i++) {
    const score = scores[i]!;
    const doc = docs[i]!;
    let j = i - 1;
    while (j >= lo && (scores[j]! < score || (scores[j] === score && docs[j]! > doc))) {
      scores[j + 1] = scores[j]!;
      docs[j + 1] = docs[j]!;
      j--;
    }
    scores[j + 1] = score;
    docs[j + 1] = doc;
  }
}

function swap(docs: Int32Array, scores: Float64Array, i: number, j: number): void {
  const s = scores[i]!;
  scores[i] = scores[j]!;
  scores[j] = s;
  const d = docs[i]!;
  docs[i] = docs[j]!;
  docs[j] = d;
}
