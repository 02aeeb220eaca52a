/**
 * Exhaustive term-at-a-time top-k: every posting of every query term is added into one
 * accumulator per document, then the best k are selected from all of them (see select.ts; ties
 * going to the lower document number, as in MaxScore). It skips nothing, but its loops are the
 * simplest there are: on a collection small enough that a query's lists cover much of it,
 * MaxScore's windows and bound checks cost more than the postings they skip (see `searchTopDocs`).
 */
import type { Bm25Index } from './bm25-index.js';
import type { WeightedTerm } from './cursors.js';
import type { DocFilter, SearchScratch, TopDocs } from './max-score.js';
import { BucketSelect } from './select.js';
import { TopKHeap } from './top-k-heap.js';

/**
 * From this k up, when the query's postings are at least as many as the documents, the top k is
 * selected from all accumulators at once (select.ts): most documents then match, and a heap fed
 * them in document order keeps replacing its minimum. Otherwise a heap filled during one pass
 * is cheaper: its threshold soon rises above most documents, after which each costs one
 * well-predicted comparison. `node bench/bm25-strategies.mjs`: Cranfield (1,400 documents,
 * ~2,000 postings a query) top 100 42 µs (heap) against 32 µs (buckets); top 10, and SciFact
 * (5,183 documents, ~4,400 postings), the heap wins or ties.
 */
export const SELECT_MIN_K = 32;

/** How the top k is picked from the accumulators: as above (the default), or forced (benchmarks). */
export type Selection = 'auto' | 'heap' | 'buckets';

/**
 * The best `k` documents for `terms` (optionally within one subset label), scoring every
 * posting. `scratch.perDoc` (one slot per document, all zero between searches),
 * `scratch.heap` and `scratch.select` are made on first use.
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
  const acc = (scratch.perDoc ??= new Float64Array(n));
  const { postingStart, postingDocs: docs } = index.data;
  const impacts = index.postingImpacts;
  let bound = 0;
  let postings = 0;
  // No cursors or ordering: nothing is skipped, so the lists are simply added in turn.
  for (let i = 0; i < terms.length; i++) {
    const { term, weight } = terms[i]!;
    if (term < 0 || weight <= 0) continue;
    // Also fills the term's impacts on its first query. The bound is summed as the scores are,
    // term by term, so rounding keeps every score at or below it.
    bound += weight * index.maxImpact(term);
    const end = postingStart[term + 1]!;
    postings += end - postingStart[term]!;
    for (let p = postingStart[term]!; p < end; p++) acc[docs[p]!]! += weight * impacts[p]!;
  }
  const buckets =
    selection === 'auto' ? k >= SELECT_MIN_K && postings >= n : selection === 'buckets';
  const top = buckets
    ? (scratch.select ??= new BucketSelect(n)).top(acc, n, k, bound, filter)
    : bestOf(acc, n, (scratch.heap ??= new TopKHeap(k)).reset(k), filter);
  acc.fill(0, 0, n);
  return top;
}

/** The best non-zero accumulators (as many as the empty heap holds), in one pass. */
function bestOf(
  acc: Float64Array,
  n: number,
  heap: TopKHeap,
  filter: DocFilter | undefined,
): TopDocs {
  // Unmatched documents hold 0 and matched ones more, so until the heap is full "beats 0"
  // is the test; the branch is then rarely taken, which keeps the loop cheap.
  let threshold = 0;
  for (let d = 0; d < n; d++) {
    const score = acc[d]!;
    if (score > threshold && (filter === undefined || filter.labels[d] === filter.wanted)) {
      heap.offer(d, score);
      if (heap.full) threshold = heap.threshold;
    }
  }
  return heap.drain();
}
