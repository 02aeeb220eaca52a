/**
 * Exhaustive term-at-a-time scoring: every posting of every query term is added into one
 * accumulator per passage, then the k best are selected. The reference the pruned search must
 * equal, and the baseline of the bench.
 */
import type { SparseIndexData } from '../index/types.js';
import type { QueryTerms } from './query-terms.js';
import { TopK } from './top-k.js';
import { accepts, type PassageHits, type SearchOptions } from './types.js';

/**
 * Scores every passage that shares a term with the query. `accumulators` is scratch of one
 * entry per passage, all zero, and left all zero.
 *
 * @example exhaustiveSearch(index, query, { k: 10 }, new Float64Array(index.passageIds.length))
 */
export function exhaustiveSearch(
  index: SparseIndexData,
  query: QueryTerms,
  options: SearchOptions,
  accumulators: Float64Array,
): PassageHits {
  const { invertedOffsets, invertedPassages, invertedImpacts } = index;
  let work = 0;
  for (let i = 0; i < query.terms.length; i++) {
    const term = query.terms[i]!;
    const weight = query.weights[i]!;
    const end = invertedOffsets[term + 1]!;
    for (let j = invertedOffsets[term]!; j < end; j++)
      accumulators[invertedPassages[j]!]! += weight * invertedImpacts[j]!;
    work += end - invertedOffsets[term]!;
  }
  const top = new TopK(options.k);
  let scored = 0;
  for (let p = 0; p < accumulators.length; p++) {
    const score = accumulators[p]!;
    if (score === 0) continue;
    accumulators[p] = 0;
    scored++;
    if (accepts(options.filter, p)) top.offer(score, p);
  }
  return { ...top.sorted(), work, scored };
}
