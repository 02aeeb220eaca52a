/**
 * Exhaustive term-at-a-time top-k: every posting of every query term is added into one
 * accumulator per document, then the best k are selected from all of them (see select.ts; ties
 * going to the lower document number, as in MaxScore). It skips nothing, but its loops are the
 * simplest there are: on a collection small enough that a query's lists cover much of it,
 * MaxScore's windows and bound checks cost more than the postings they skip (see `searchTopDocs`).
 */
import type { Bm25Index } from './bm25-index.js';
import type { ScoringKernel } from './scoring-kernel.js';
import type { SearchScratch } from './search-scratch.js';
import type { DocFilter, TopDocs, WeightedTerm } from './search-types.js';
import { BucketSelect } from './select.js';
import { TopKHeap } from './top-k-heap.js';

/**
 * The top k is selected from all accumulators at once (select.ts) when the collection has at
 * most this many documents per result wanted: that costs two passes over every document and a
 * fixed few microseconds, while a heap filled during one pass pays about k·ln(matches/k)
 * replacements of log k each, and between them one well-predicted comparison per document (in
 * WebAssembly). `node bench/bm25-strategies.mjs` (µs a query, heap against buckets): Cranfield (1,400 documents) top 10, 6.3 against 9.3, top 100 32.1 against 12.3;
 * SciFact (5,183) top 100, 48.9 against 30.1; 22,400 documents top 100, 111 against 117;
 * 20,732, 126 against 107. At top 10 the heap wins from 140 documents per result up.
 */
export const SELECT_DOCS_PER_RESULT = 128;

/** How the top k is picked from the accumulators: as above (the default), or forced (benchmarks). */
export type Selection = 'auto' | 'heap' | 'buckets';

/**
 * The best `k` documents for `terms` (optionally within one subset label), scoring every
 * posting, in WebAssembly when the index has a kernel. `scratch.perDoc` (one slot per document,
 * all zero between searches; unused with a kernel), `scratch.heap` and `scratch.select` are made
 * on first use.
 *
 * @example
 * const top = exhaustiveSearch(index, [{ term: index.termId('wing'), weight: index.idf(index.termId('wing')) }], 10);
 */
export function exhaustiveSearch(
  index: Bm25Index,
  terms: readonly WeightedTerm[],
  k: number,
  filter?: DocFilter,
  scratch: Pick<SearchScratch, 'perDoc' | 'heap' | 'select'> = {},
  selection: Selection = 'auto',
): TopDocs {
  const n = index.numDocs;
  const kernel = index.kernel;
  const acc = kernel?.acc ?? (scratch.perDoc ??= new Float64Array(n));
  const { postingStart } = index.data;
  let bound = 0;
  // No cursors or ordering: nothing is skipped, so the lists are simply added in turn.
  for (let i = 0; i < terms.length; i++) {
    const { term, weight } = terms[i]!;
    if (term < 0 || weight <= 0) continue;
    // Also fills the term's impacts on its first query. The bound is summed as the scores are,
    // term by term, so rounding keeps every score at or below it.
    bound += weight * index.maxImpact(term);
    if (kernel !== undefined) {
      kernel.accumulate(postingStart[term]!, postingStart[term + 1]!, weight);
      continue;
    }
    const { docs, impacts } = index.list(term);
    for (let p = 0; p < docs.length; p++) acc[docs[p]!]! += weight * impacts[p]!;
  }
  const buckets = selection === 'auto' ? n <= SELECT_DOCS_PER_RESULT * k : selection === 'buckets';
  const heap = buckets ? undefined : (scratch.heap ??= new TopKHeap(k)).reset(k);
  const top =
    heap === undefined
      ? (scratch.select ??= new BucketSelect(n)).top(acc, n, k, bound, filter, kernel)
      : bestOf(acc, n, heap, filter, kernel);
  acc.fill(0, 0, n);
  return top;
}

/**
 * The best non-zero accumulators (as many as the empty heap holds), in one pass. Until the heap
 * is full "beats 0" is the test, then "beats the heap's threshold": few documents pass it, so
 * the scan between them (in WebAssembly when there is a kernel) is a tight, well-predicted loop.
 */
function bestOf(
  acc: Float64Array,
  n: number,
  heap: TopKHeap,
  filter: DocFilter | undefined,
  kernel: ScoringKernel | undefined,
): TopDocs {
  let threshold = 0;
  for (let d = above(acc, 0, n, 0, kernel); d < n; d = above(acc, d + 1, n, threshold, kernel)) {
    if (filter === undefined || filter.labels[d] === filter.wanted) {
      heap.offer(d, acc[d]!);
      if (heap.full) threshold = heap.threshold;
    }
  }
  return heap.drain();
}

/** The first document from `from` (below `n`) whose accumulator beats `threshold`, or `n`. */
function above(
  acc: Float64Array,
  from: number,
  n: number,
  threshold: number,
  kernel: ScoringKernel | undefined,
): number {
  if (kernel !== undefined) return kernel.above(from, n, threshold);
  let d = from;
  while (d < n && !(acc[d]! > threshold)) d++;
  return d;
}
