/**
 * Exhaustive term-at-a-time scoring: every posting of every query term is added into one
 * accumulator per passage, then one pass over the accumulators keeps the k best. The reference
 * the pruned searches must equal, and the baseline of the bench, so it is kept honest: integer
 * impacts add into an Int32Array (half the cache footprint of doubles) whenever the query's
 * largest possible score fits in 31 bits, and the selection pass compares against the k-th
 * score before touching the heap.
 */
import type { SparseIndexData } from '../index/types.js';
import type { QueryTerms } from './query-terms.js';
import { TopK } from './top-k.js';
import { accepts, type PassageHits, type SearchOptions } from './types.js';

/** Accumulators of one searcher: all zero between calls. */
export interface ExhaustiveScratch {
  ints: Int32Array;
  floats: Float64Array;
  /** Largest impact of each term (for the overflow check of integer accumulation). */
  termMax: Float64Array;
}

/**
 * Scratch for `exhaustiveSearch` over `index` (one per concurrent searcher).
 *
 * @example const scratch = exhaustiveScratch(index);
 */
export function exhaustiveScratch(index: SparseIndexData): ExhaustiveScratch {
  const passages = index.passageIds.length;
  const integer = index.quantization > 0;
  return {
    ints: new Int32Array(integer ? passages : 0),
    floats: new Float64Array(passages),
    termMax: termMaxima(index),
  };
}

/** The largest impact of every term, from its block maxima. */
export function termMaxima(index: SparseIndexData): Float64Array {
  const termMax = new Float64Array(index.terms.length);
  const { blockOffsets, blockMax } = index;
  for (let t = 0; t < index.terms.length; t++) {
    let best = 0;
    for (let j = blockOffsets[t]!; j < blockOffsets[t + 1]!; j++)
      if (blockMax[j]! > best) best = blockMax[j]!;
    termMax[t] = best;
  }
  return termMax;
}

/** Whether every score of `query` fits an Int32 accumulator. */
function fitsInt32(index: SparseIndexData, query: QueryTerms, termMax: Float64Array): boolean {
  if (index.quantization === 0) return false;
  let bound = 0;
  for (let i = 0; i < query.terms.length; i++)
    bound += query.weights[i]! * termMax[query.terms[i]!]!;
  return bound < 2 ** 31;
}

function accumulate(
  index: SparseIndexData,
  query: QueryTerms,
  accumulators: Int32Array | Float64Array,
): number {
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
  return work;
}

/** Keeps the k best non-zero accumulators (zeroing every one on the way). */
export function select(
  accumulators: Int32Array | Float64Array,
  options: SearchOptions,
): { top: TopK; scored: number } {
  const top = new TopK(options.k);
  const filter = options.filter;
  let threshold = -Infinity;
  let scored = 0;
  for (let p = 0; p < accumulators.length; p++) {
    const score = accumulators[p]!;
    if (score === 0) continue;
    accumulators[p] = 0;
    scored++;
    // Passages come in ascending order, so one that only ties the k-th score never enters.
    if (score <= threshold || !accepts(filter, p)) continue;
    top.offer(score, p);
    threshold = top.threshold;
  }
  return { top, scored };
}

/**
 * Scores every passage that shares a term with the query.
 *
 * @example exhaustiveSearch(index, query, { k: 10 }, exhaustiveScratch(index))
 */
export function exhaustiveSearch(
  index: SparseIndexData,
  query: QueryTerms,
  options: SearchOptions,
  scratch: ExhaustiveScratch,
): PassageHits {
  const accumulators = fitsInt32(index, query, scratch.termMax) ? scratch.ints : scratch.floats;
  const work = accumulate(index, query, accumulators);
  const { top, scored } = select(accumulators, options);
  return { ...top.sorted(), work, scored };
}
