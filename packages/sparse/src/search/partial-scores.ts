/**
 * What the pruned term-at-a-time searches share: passages touched so far with their partial
 * sums, a lower bound of the final k-th score taken from them, and exact scores from the
 * forward index.
 */
import type { SparseIndexData } from '../index/types.js';
import { TopK } from './top-k.js';
import { accepts, type SearchOptions } from './types.js';

/** Passages with a partial sum, in the order first touched (`passages[0..count)`). */
/** Float sums of bounds may round below an exact score they bound: keep a margin. */
export const FLOAT_SLACK = 1 + 1e-9;

export interface Touched {
  accumulators: Int32Array | Float64Array;
  passages: Uint32Array;
  count: number;
}

/** The exact score of passage `p` from the forward index (query weights set in `termWeights`). */
export function exactScore(index: SparseIndexData, termWeights: Float64Array, p: number): number {
  const { forwardOffsets, forwardTerms, forwardImpacts } = index;
  let score = 0;
  const end = forwardOffsets[p + 1]!;
  // Terms outside the query have weight 0: adding 0 leaves the sum (and its rounding) as is.
  for (let j = forwardOffsets[p]!; j < end; j++)
    score += termWeights[forwardTerms[j]!]! * forwardImpacts[j]!;
  return score;
}

/**
 * The k best partial sums (of passages that pass the filter) among `pool` and the passages
 * touched from `from` on. Any such subset gives a lower bound of the final k-th score (sums
 * only grow), so a search can rescan just the passages touched since its last look plus the
 * best it kept then. `work` counts the passages looked at.
 *
 * @example bestPartials(touched, { k: 10 }, new Int32Array(0), 0).top.threshold
 */
export function bestPartials(
  touched: Touched,
  options: SearchOptions,
  pool: Int32Array,
  from: number,
): { top: TopK; work: number } {
  const top = new TopK(options.k);
  const { accumulators, passages } = touched;
  for (let i = 0; i < pool.length; i++) {
    const p = pool[i]!;
    if (accepts(options.filter, p)) top.offer(accumulators[p]!, p);
  }
  for (let i = from; i < touched.count; i++) {
    const p = passages[i]!;
    const sum = accumulators[p]!;
    if (sum > top.threshold && accepts(options.filter, p)) top.offer(sum, p);
  }
  return { top, work: pool.length + touched.count - from };
}

/**
 * The k-th best exact score of `passages` (-Infinity for fewer than k): a lower bound of the
 * final k-th score, higher than their partial sums give, for one forward lookup each.
 *
 * @example exactKth(index, termWeights, best.sorted().ids, 10).threshold
 */
export function exactKth(
  index: SparseIndexData,
  termWeights: Float64Array,
  passages: Int32Array,
  k: number,
): { threshold: number; work: number } {
  const best = new TopK(k);
  let work = 0;
  for (const p of passages) {
    best.offer(exactScore(index, termWeights, p), p);
    work += index.forwardOffsets[p + 1]! - index.forwardOffsets[p]!;
  }
  return { threshold: best.threshold, work };
}
