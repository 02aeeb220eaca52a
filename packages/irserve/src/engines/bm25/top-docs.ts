/**
 * A BM25 top-k search by the algorithm the collection's size calls for
 * (exhaustive-threshold.ts): exhaustive scoring on small collections, MaxScore above.
 */
import type { Bm25Index } from './bm25-index.js';
import { exhaustiveSearch } from './exhaustive.js';
import { searchedExhaustively } from './exhaustive-threshold.js';
import { maxScoreSearch } from './max-score.js';
import type { DocFilter, TopDocs, WeightedTerm } from './search-types.js';

/**
 * The best `k` documents of `index` for `terms` (optionally within one subset label), best
 * first, ties going to the lower document number.
 *
 * @example
 * const top = searchTopDocs(index, weightedQuery(index, analyzer, 'wing lift'), 10);
 */
export function searchTopDocs(
  index: Bm25Index,
  terms: readonly WeightedTerm[],
  k: number,
  filter?: DocFilter,
): TopDocs {
  return searchedExhaustively(index.numDocs)
    ? exhaustiveSearch(index, terms, k, filter, index.scratch)
    : maxScoreSearch(index, terms, k, filter, index.scratch);
}
