/**
 * Exhaustive term-at-a-time top-k: every posting of every query term is added into one
 * accumulator per document, then one pass in document order keeps the best k (ties going to
 * the lower document number, as in MaxScore). It skips nothing, but its loops are the simplest
 * there are: on a collection small enough that a query's lists cover much of it, MaxScore's
 * windows and bound checks cost more than the postings they skip (see `searchTopDocs`).
 */
import type { Bm25Index } from './bm25-index.js';
import type { WeightedTerm } from './cursors.js';
import type { DocFilter, SearchScratch, TopDocs } from './max-score.js';
import { TopKHeap } from './top-k-heap.js';

/**
 * The best `k` documents for `terms` (optionally within one subset label), scoring every
 * posting. `scratch.perDoc` (one slot per document, all zero between searches) and
 * `scratch.heap` are made on first use.
 *
 * @example
 * const top = exhaustiveSearch(index, [{ term: index.termId('wing'), weight: index.idf(index.termId('wing')) }], 10);
 */
export function exhaustiveSearch(
  index: Bm25Index,
  terms: readonly WeightedTerm[],
  k: number,
  filter?: DocFilter,
  scratch: Pick<SearchScratch, 'perDoc' | 'heap'> = {},
): TopDocs {
  const acc = (scratch.perDoc ??= new Float64Array(index.numDocs));
  const { postingStart, postingDocs: docs } = index.data;
  const impacts = index.postingImpacts;
  // No cursors, bounds or ordering: nothing is skipped, so the lists are simply added in turn.
  for (let i = 0; i < terms.length; i++) {
    const { term, weight } = terms[i]!;
    if (term < 0 || weight <= 0) continue;
    index.maxImpact(term); // fills the term's impacts on its first query
    const end = postingStart[term + 1]!;
    for (let p = postingStart[term]!; p < end; p++) acc[docs[p]!]! += weight * impacts[p]!;
  }
  return bestOf(acc, index.numDocs, (scratch.heap ??= new TopKHeap(k)).reset(k), filter);
}

/** The best non-zero accumulators (as many as the empty heap holds), in one pass; clears them all. */
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
  acc.fill(0, 0, n);
  return heap.drain();
}
