/**
 * Safe block-max pruning (Mallia, Suel and Tonellotto's BMP, SIGIR 2024): passages are grouped
 * in blocks of consecutive numbers; each term lists its largest impact per block. A query first
 * sums `weight * blockMax` into an upper bound per block, then scores whole blocks from the
 * forward index in decreasing bound order, and stops when the next bound is below the k-th best
 * score. Nothing that could enter the top k is skipped, so the result equals exhaustive search.
 *
 * Scores add the same products in the same order (ascending term id) as the exhaustive kernel,
 * so float-mode scores are bit-identical too.
 */
import type { SparseIndexData } from '../index/types.js';
import { BlockQueue } from './block-queue.js';
import type { QueryTerms } from './query-terms.js';
import { TopK } from './top-k.js';
import { accepts, type PassageHits, type SearchOptions } from './types.js';

/** Per-searcher scratch: one bound per block and one weight per term, all zero between calls. */
export interface BlockMaxScratch {
  bounds: Float64Array;
  termWeights: Float64Array;
  queue: BlockQueue;
}

export function blockMaxScratch(index: SparseIndexData): BlockMaxScratch {
  const blocks = Math.ceil(index.passageIds.length / index.blockSize);
  return {
    bounds: new Float64Array(blocks),
    termWeights: new Float64Array(index.terms.length),
    queue: new BlockQueue(blocks),
  };
}

function sumBounds(index: SparseIndexData, query: QueryTerms, bounds: Float64Array): number {
  const { blockOffsets, blockIds, blockMax } = index;
  let work = 0;
  for (let i = 0; i < query.terms.length; i++) {
    const term = query.terms[i]!;
    const weight = query.weights[i]!;
    const end = blockOffsets[term + 1]!;
    for (let j = blockOffsets[term]!; j < end; j++) bounds[blockIds[j]!]! += weight * blockMax[j]!;
    work += end - blockOffsets[term]!;
  }
  return work;
}

/**
 * Scores passages `first` to `last - 1` exactly from the forward index into `top`, with the
 * query's weight of every term in `termWeights` (0 for the others); returns the forward entries
 * read and the passages scored.
 */
export function scorePassages(
  index: SparseIndexData,
  first: number,
  last: number,
  termWeights: Float64Array,
  options: SearchOptions,
  top: TopK,
): { work: number; scored: number } {
  const { forwardOffsets, forwardTerms, forwardImpacts } = index;
  let threshold = top.threshold;
  let scored = 0;
  for (let p = first; p < last; p++) {
    if (!accepts(options.filter, p)) continue;
    let score = 0;
    const end = forwardOffsets[p + 1]!;
    // Terms outside the query have weight 0: adding 0 leaves the sum (and its rounding) as is.
    for (let j = forwardOffsets[p]!; j < end; j++)
      score += termWeights[forwardTerms[j]!]! * forwardImpacts[j]!;
    scored++;
    if (score > 0 && score >= threshold) {
      top.offer(score, p);
      threshold = top.threshold;
    }
  }
  return { work: forwardOffsets[last]! - forwardOffsets[first]!, scored };
}

/** Scores every passage of `block` exactly from the forward index into `top`. */
function scoreBlock(
  index: SparseIndexData,
  block: number,
  termWeights: Float64Array,
  options: SearchOptions,
  top: TopK,
): { work: number; scored: number } {
  const first = block * index.blockSize;
  const last = Math.min(index.passageIds.length, first + index.blockSize);
  return scorePassages(index, first, last, termWeights, options, top);
}

/**
 * The top k passages, equal to `exhaustiveSearch`'s, reading only the blocks that can matter.
 *
 * @example blockMaxSearch(index, query, { k: 10 }, blockMaxScratch(index))
 */
export function blockMaxSearch(
  index: SparseIndexData,
  query: QueryTerms,
  options: SearchOptions,
  scratch: BlockMaxScratch,
): PassageHits {
  const { bounds, termWeights, queue } = scratch;
  let work = sumBounds(index, query, bounds);
  queue.fill(bounds);
  for (let i = 0; i < query.terms.length; i++) termWeights[query.terms[i]!] = query.weights[i]!;
  const top = new TopK(options.k);
  let threshold = -Infinity;
  let scored = 0;
  while (queue.size > 0) {
    // A passage scoring exactly the threshold can still win on the tie-break: stop below it.
    if (bounds[queue.peek()]! < threshold) break;
    const scoredBlock = scoreBlock(index, queue.pop(), termWeights, options, top);
    work += scoredBlock.work;
    scored += scoredBlock.scored;
    threshold = top.threshold;
  }
  for (let i = 0; i < query.terms.length; i++) termWeights[query.terms[i]!] = 0;
  queue.clear(bounds);
  return { ...top.sorted(), work, scored };
}
