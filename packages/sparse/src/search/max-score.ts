/**
 * Safe term-at-a-time MaxScore with exact completion from the forward index. Query terms are
 * taken in decreasing upper bound (`weight * largest impact`): rare, heavy terms first, whose
 * postings are short. Before a long list, the unread terms' block maxima give what a passage of
 * each block can still gain; once the highest of those is below the k-th best score (a lower
 * bound from the best partial sums, scored in full from the forward index), the remaining long,
 * light postings are never read, and only touched passages whose partial sum plus their block's
 * gain can still reach the k-th score are scored exactly. Nothing that could enter the top k is skipped,
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

/** Query terms in decreasing upper bound (`weight * largest impact`), as (term, weight) pairs. */
function termsByBound(query: QueryTerms, termMax: Float64Array): [number, number][] {
  const pairs = Array.from(query.terms, (term, i): [number, number] => [term, query.weights[i]!]);
  const bound = ([term, weight]: [number, number]) => weight * termMax[term]!;
  return pairs.sort((a, b) => bound(b) - bound(a) || a[0] - b[0]);
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
  const { accumulators, touched, termWeights, blockBounds } = scratch;
  const slack = index.quantization === 0 ? FLOAT_SLACK : 1;
  const terms = termsByBound(query, scratch.termMax);
  const { invertedOffsets, invertedPassages, invertedImpacts, blockOffsets } = index;
  // What checking costs before term n: the block lists of the terms from n on.
  const checkCost = new Float64Array(terms.length + 1);
  for (let n = terms.length - 1; n >= 0; n--)
    checkCost[n] =
      checkCost[n + 1]! + blockOffsets[terms[n]![0] + 1]! - blockOffsets[terms[n]![0]]!;
  for (const [term, weight] of terms) termWeights[term] = weight;
  let count = 0;
  let work = 0;
  let threshold = -Infinity;
  let stopped = false;
  for (let n = 0; n < terms.length; n++) {
    const [term, weight] = terms[n]!;
    const start = invertedOffsets[term]!;
    const end = invertedOffsets[term + 1]!;
    // Before a list longer than a check costs: can the unread terms still lift any passage
    // (touched or not) to the k-th score? Each passage gains at most its block's bound.
    if (n > 0 && count >= options.k && 2 * (end - start) > checkCost[n]! + count) {
      const highest = unreadBlockBounds(index, terms.slice(n), blockBounds) * slack;
      work += checkCost[n]!;
      threshold = Math.max(
        threshold,
        kthLowerBound(index, scratch, count, options.k, options.filter, highest),
      );
      if (highest < threshold) {
        stopped = true;
        break;
      }
      blockBounds.fill(0);
    }
    for (let j = start; j < end; j++) {
      const p = invertedPassages[j]!;
      if (accumulators[p] === 0) touched[count++] = p;
      accumulators[p]! += weight * invertedImpacts[j]!;
    }
    work += end - start;
  }
  const top = new TopK(options.k);
  let scored = 0;
  for (let c = 0; c < count; c++) {
    const p = touched[c]!;
    const partial = accumulators[p]!;
    accumulators[p] = 0;
    const bound = stopped
      ? partial + blockBounds[Math.floor(p / index.blockSize)]! * slack
      : Infinity;
    if (bound < threshold || !accepts(options.filter, p)) continue;
    // Without a stop every term was read: an integer partial sum is the exact score; float sums
    // are redone in ascending term order so they match exhaustive scoring bit for bit.
    const exact = !stopped && index.quantization > 0;
    scored++;
    if (!exact) work += index.forwardOffsets[p + 1]! - index.forwardOffsets[p]!;
    top.offer(exact ? partial : exactScore(index, termWeights, p), p);
  }
  for (const [term] of terms) termWeights[term] = 0;
  if (stopped) blockBounds.fill(0);
  return { ...top.sorted(), work, scored };
}

/**
 * Sums `weight * blockMax` of the unread terms into one bound per block (what a passage of the
 * block can still gain); returns the highest.
 */
function unreadBlockBounds(
  index: SparseIndexData,
  unread: readonly [number, number][],
  bounds: Float64Array,
): number {
  const { blockOffsets, blockIds, blockMax } = index;
  for (const [term, weight] of unread) {
    const end = blockOffsets[term + 1]!;
    for (let j = blockOffsets[term]!; j < end; j++) bounds[blockIds[j]!]! += weight * blockMax[j]!;
  }
  let highest = 0;
  for (let b = 0; b < bounds.length; b++) if (bounds[b]! > highest) highest = bounds[b]!;
  return highest;
}
