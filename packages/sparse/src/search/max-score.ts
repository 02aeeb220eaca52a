/**
 * Safe term-at-a-time MaxScore with exact completion from the forward index. Query terms are
 * taken in decreasing upper bound (`weight * largest impact`): rare, heavy terms first, whose
 * postings are short. After each term, a passage no term so far reached can score at most the
 * sum of the remaining bounds; once the k-th best exact score (found by scoring the best partial
 * sums in full from the forward index) exceeds that sum, the remaining (long, light) postings
 * are never read. The touched passages whose partial sum plus what the unread terms can add in
 * their block (the block maxima) can still reach the k-th score are then scored exactly. Nothing that could enter the top k is skipped,
 * so the result equals exhaustive search; scores add the same products in the same order
 * (ascending term id) as the exhaustive kernel, so they are bit-identical in float mode too.
 */
import type { SparseIndexData } from '../index/types.js';
import type { QueryTerms } from './query-terms.js';
import { TopK } from './top-k.js';
import { accepts, type PassageFilter, type PassageHits, type SearchOptions } from './types.js';

/** Per-searcher scratch; every array is all zero between calls. */
export interface MaxScoreScratch {
  accumulators: Float64Array;
  touched: Uint32Array;
  termWeights: Float64Array;
  /** Largest impact of each term (computed once per index). */
  termMax: Float64Array;
  /** Per block: what the terms left unread can add to a passage of that block. */
  blockBounds: Float64Array;
}

/** Float sums of the bounds may round below an exact score they bound: keep a margin. */
const FLOAT_SLACK = 1 + 1e-9;

export function maxScoreScratch(index: SparseIndexData): MaxScoreScratch {
  const termMax = new Float64Array(index.terms.length);
  for (let t = 0; t < index.terms.length; t++)
    for (let j = index.blockOffsets[t]!; j < index.blockOffsets[t + 1]!; j++)
      termMax[t] = Math.max(termMax[t]!, index.blockMax[j]!);
  return {
    accumulators: new Float64Array(index.passageIds.length),
    touched: new Uint32Array(index.passageIds.length),
    termWeights: new Float64Array(index.terms.length),
    termMax,
    blockBounds: new Float64Array(Math.ceil(index.passageIds.length / index.blockSize)),
  };
}

/** The exact score of passage `p` from the forward index (query weights set in `termWeights`). */
function exactScore(index: SparseIndexData, termWeights: Float64Array, p: number): number {
  const { forwardOffsets, forwardTerms, forwardImpacts } = index;
  let score = 0;
  const end = forwardOffsets[p + 1]!;
  for (let j = forwardOffsets[p]!; j < end; j++) {
    const weight = termWeights[forwardTerms[j]!]!;
    if (weight !== 0) score += weight * forwardImpacts[j]!;
  }
  return score;
}

/**
 * A lower bound of the final k-th score: the k-th best partial sum (partial sums never exceed
 * exact scores), or, when that is not enough to stop at `remaining`, the k-th best exact score
 * of those k passages. -Infinity while fewer than k passages are touched.
 */
function kthLowerBound(
  index: SparseIndexData,
  scratch: MaxScoreScratch,
  count: number,
  k: number,
  filter: PassageFilter | undefined,
  remaining: number,
): number {
  const partial = new TopK(k);
  for (let i = 0; i < count; i++) {
    const p = scratch.touched[i]!;
    if (accepts(filter, p)) partial.offer(scratch.accumulators[p]!, p);
  }
  if (!partial.full || partial.threshold > remaining) return partial.threshold;
  const exact = new TopK(k);
  for (const p of partial.sorted().ids) exact.offer(exactScore(index, scratch.termWeights, p), p);
  return exact.threshold;
}

/**
 * The top k passages, equal to `exhaustiveSearch`'s, reading only the postings that can matter.
 *
 * @example maxScoreSearch(index, query, { k: 10 }, maxScoreScratch(index))
 */
export function maxScoreSearch(
  index: SparseIndexData,
  query: QueryTerms,
  options: SearchOptions,
  scratch: MaxScoreScratch,
): PassageHits {
  const { accumulators, touched, termWeights, termMax } = scratch;
  const slack = index.quantization === 0 ? FLOAT_SLACK : 1;
  const order = Array.from(query.terms, (_, i) => i);
  const bounds = order.map((i) => query.weights[i]! * termMax[query.terms[i]!]!);
  order.sort((a, b) => bounds[b]! - bounds[a]! || a - b);
  let remaining = bounds.reduce((sum, b) => sum + b, 0) * slack;
  for (let i = 0; i < query.terms.length; i++) termWeights[query.terms[i]!] = query.weights[i]!;
  const { invertedOffsets, invertedPassages, invertedImpacts } = index;
  let count = 0;
  let work = 0;
  let threshold = -Infinity;
  let processed = 0;
  // Bounds are re-estimated when `remaining` has shrunk enough: a few times per query, not per term.
  let nextCheck = Infinity;
  for (const i of order) {
    // Every passage not touched yet scores at most `remaining`: stop once it cannot reach the k-th.
    if (processed > 0 && remaining < threshold) break;
    const term = query.terms[i]!;
    const weight = query.weights[i]!;
    const end = invertedOffsets[term + 1]!;
    for (let j = invertedOffsets[term]!; j < end; j++) {
      const p = invertedPassages[j]!;
      if (accumulators[p] === 0) touched[count++] = p;
      accumulators[p]! += weight * invertedImpacts[j]!;
    }
    work += end - invertedOffsets[term]!;
    remaining = Math.max(0, remaining - bounds[i]! * slack);
    processed++;
    if (remaining < threshold || count < options.k || remaining > nextCheck) continue;
    const bound = kthLowerBound(index, scratch, count, options.k, options.filter, remaining);
    threshold = Math.max(threshold, bound);
    nextCheck = remaining * 0.7;
  }
  const unread = order.slice(processed).map((i) => [query.terms[i]!, query.weights[i]!] as const);
  work += unreadBlockBounds(index, unread, scratch.blockBounds);
  const { blockBounds } = scratch;
  const top = new TopK(options.k);
  let scored = 0;
  for (let c = 0; c < count; c++) {
    const p = touched[c]!;
    const partial = accumulators[p]!;
    accumulators[p] = 0;
    const bound = partial + blockBounds[Math.floor(p / index.blockSize)]! * slack;
    if (bound < threshold || !accepts(options.filter, p)) continue;
    const score = exactScore(index, termWeights, p);
    scored++;
    work += index.forwardOffsets[p + 1]! - index.forwardOffsets[p]!;
    top.offer(score, p);
  }
  for (let i = 0; i < query.terms.length; i++) termWeights[query.terms[i]!] = 0;
  if (unread.length > 0) blockBounds.fill(0);
  return { ...top.sorted(), work, scored };
}

/**
 * Sums `weight * blockMax` of the unread terms into one bound per block: a touched passage can
 * gain at most its block's bound from them (tighter than the terms' global maxima).
 */
function unreadBlockBounds(
  index: SparseIndexData,
  unread: readonly (readonly [number, number])[],
  bounds: Float64Array,
): number {
  const { blockOffsets, blockIds, blockMax } = index;
  let work = 0;
  for (const [term, weight] of unread) {
    const end = blockOffsets[term + 1]!;
    for (let j = blockOffsets[term]!; j < end; j++) bounds[blockIds[j]!]! += weight * blockMax[j]!;
    work += end - blockOffsets[term]!;
  }
  return work;
}
