/**
 * The top k of a full accumulator array, by bucketing instead of a heap. Exhaustive scoring
 * leaves one score per document; picking the best k with a heap pays a data-dependent branch
 * per document (a coin toss for the branch predictor while the heap fills, and on a small
 * collection most documents match) and log k per replacement and per result. Here one
 * branch-free pass counts documents into linear score buckets below the query's score bound;
 * the buckets from the top down to the one holding the k-th are laid out by a counting sort in
 * a second pass (its documents found in WebAssembly when there is a kernel), and an insertion
 * sort orders each bucket's few documents. The exhaustive search uses it when k is large for
 * the collection (see `SELECT_DOCS_PER_RESULT`).
 */
import type { DocFilter, TopDocs } from './search-types.js';
import type { ScoringKernel } from './scoring-kernel.js';

/**
 * Buckets over [0, bound]: bucket b holds scores in [b, b + 1) / scale, the best in BUCKETS - 2,
 * and the last bucket takes any rounding above the bound. Bucket 0 also holds the documents
 * that do not match, so it is laid out only when the others hold fewer than k documents.
 */
const BUCKETS = 1024;
/** A bucket with more documents than this is ordered by quicksort (insertion sort is quadratic). */
const INSERTION_MAX = 32;

export class BucketSelect {
  /** Four histograms while counting (see `countAll`), then the sum in the first. */
  readonly #lanes = new Int32Array(4 * BUCKETS);
  readonly #docs: Int32Array;
  readonly #scores: Float64Array;

  /** For accumulator arrays of up to `numDocs` documents. */
  constructor(numDocs: number) {
    this.#docs = new Int32Array(numDocs);
    this.#scores = new Float64Array(numDocs);
  }

  /**
   * The best `k` documents of `acc[0..n)` with a score above 0 (within `filter`, if given),
   * best first, ties going to the lower document. No score may exceed `bound`. With `kernel`,
   * `acc` must be its accumulators.
   *
   * @example
   * new BucketSelect(3).top(Float64Array.of(1, 3, 2), 3, 2, 3) // { docs: [1, 2], scores: [3, 2] }
   */
  top(
    acc: Float64Array,
    n: number,
    k: number,
    bound: number,
    filter?: DocFilter,
    kernel?: ScoringKernel,
  ): TopDocs {
    if (!(bound > 0)) return { docs: [], scores: [] };
    const scale = (BUCKETS - 2) / bound;
    const lanes = this.#lanes.fill(0);
    if (filter === undefined) countAll(acc, n, scale, lanes);
    else countFiltered(acc, n, scale, filter, lanes);
    const { lowest, widest } = offsets(lanes, k);
    const total = this.#layOut(acc, n, scale, lowest, lanes, filter, kernel);
    if (widest <= INSERTION_MAX) insertionSort(this.#docs, this.#scores, 0, total - 1);
    else sortBestFirst(this.#docs, this.#scores, total);
    const found = Math.min(k, total);
    const docs = new Array<number>(found);
    const scores = new Array<number>(found);
    for (let i = 0; i < found; i++) {
      docs[i] = this.#docs[i]!;
      scores[i] = this.#scores[i]!;
    }
    return { docs, scores };
  }

  /**
   * Copies the matching documents of buckets top..lowest to their offsets, in document order;
   * returns how many. Bucket 0 comes last, so skipping its non-matching documents leaves no gap.
   * A document is in bucket `lowest` or above when score * scale >= lowest (for bucket 0: when
   * its score is above 0). Few are, and a kernel lists them in one pass with no branch
   * (Cranfield top 100: about 1.5 against 3.5 µs a query for the loop here).
   */
  #layOut(
    acc: Float64Array,
    n: number,
    scale: number,
    lowest: number,
    next: Int32Array,
    filter: DocFilter | undefined,
    kernel: ScoringKernel | undefined,
  ): number {
    const least = lowest > 0 ? lowest : Number.MIN_VALUE;
    let total = 0;
    if (kernel !== undefined) {
      const candidates = kernel.collect(n, scale, least);
      for (let i = 0; i < candidates.length; i++) {
        total += this.#place(acc, candidates[i]!, scale, next, filter);
      }
    } else {
      for (let d = 0; d < n; d++) {
        if (acc[d]! * scale >= least) total += this.#place(acc, d, scale, next, filter);
      }
    }
    return total;
  }

  /** Puts document `d` at its bucket's next offset (returns 1), unless the filter excludes it (0). */
  #place(
    acc: Float64Array,
    d: number,
    scale: number,
    next: Int32Array,
    filter: DocFilter | undefined,
  ): number {
    if (filter !== undefined && filter.labels[d] !== filter.wanted) return 0;
    const score = acc[d]!;
    const at = next[(score * scale) | 0]!++;
    this.#docs[at] = d;
    this.#scores[at] = score;
    return 1;
  }
}

/**
 * Counts every document into `lanes`. Most documents of a query fall in a few buckets (bucket 0
 * above all), and one histogram makes each increment wait for the store before it: four
 * histograms, taking every fourth document each and summed at the end, let four increments run
 * at once (Cranfield: 6.5 against 3.4 µs a query).
 */
function countAll(acc: Float64Array, n: number, scale: number, lanes: Int32Array): void {
  let d = 0;
  for (; d + 3 < n; d += 4) {
    lanes[(acc[d]! * scale) | 0]!++;
    lanes[BUCKETS + ((acc[d + 1]! * scale) | 0)]!++;
    lanes[2 * BUCKETS + ((acc[d + 2]! * scale) | 0)]!++;
    lanes[3 * BUCKETS + ((acc[d + 3]! * scale) | 0)]!++;
  }
  for (; d < n; d++) lanes[(acc[d]! * scale) | 0]!++;
}

/** As `countAll`, documents outside the filter going to bucket 0. */
function countFiltered(
  acc: Float64Array,
  n: number,
  scale: number,
  { labels, wanted }: DocFilter,
  lanes: Int32Array,
): void {
  for (let d = 0; d < n; d++) {
    const lane = (d & 3) * BUCKETS;
    lanes[lane + (labels[d] === wanted ? (acc[d]! * scale) | 0 : 0)]!++;
  }
}

/**
 * Turns the counts of the buckets to lay out (top down to `lowest`, the one holding the k-th
 * document) into start offsets in the first histogram of `lanes`, best bucket first; at most
 * `widest` documents in one of them. Only those buckets' four counts are summed.
 */
function offsets(lanes: Int32Array, k: number): { lowest: number; widest: number } {
  let total = 0;
  let widest = 0;
  let b = BUCKETS - 1;
  for (; b >= 0 && total < k; b--) {
    const c = lanes[b]! + lanes[BUCKETS + b]! + lanes[2 * BUCKETS + b]! + lanes[3 * BUCKETS + b]!;
    lanes[b] = total;
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
