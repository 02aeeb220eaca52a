/**
 * The forward index as the fast block-max search reads it: term ids and offsets as Int32Array
 * views of the same bytes (when the index has fewer than 2^31 postings), because V8 reads a
 * Uint32Array element as a double whenever it cannot prove it below 2^31, which made scoring a
 * passage about 1.5 times slower. An index served from its files reads the postings of the
 * passages it scores from the files instead (`pagedForward`).
 */
import type { Impacts, SparseIndexData } from '../../index/types.js';
import type { TopK } from '../top-k.js';
import { accepts, type PassageFilter } from '../types.js';

export interface ForwardView {
  /** Where each passage's postings start, counted from the first of the index. */
  offsets: Int32Array | Uint32Array;
  /** The postings held: the index's from posting `at` on (all of them in memory: `at` 0). */
  terms: Int32Array | Uint32Array;
  impacts: Impacts;
  at: number;
}

/**
 * The forward index around passages `first` to `last - 1`: the whole of it in memory, or those
 * passages' postings read from the files (valid until the next call).
 */
export type ForwardReader = (first: number, last: number) => ForwardView;

const asInt32 = (array: Uint32Array) =>
  new Int32Array(array.buffer, array.byteOffset, array.length);

/** The forward index of an index in memory: every range is the same view of all of it. */
export function forwardView(index: SparseIndexData): ForwardReader {
  const small = index.forwardTerms.length < 2 ** 31;
  const view: ForwardView = {
    offsets: small ? asInt32(index.forwardOffsets) : index.forwardOffsets,
    terms: small ? asInt32(index.forwardTerms) : index.forwardTerms,
    impacts: index.forwardImpacts,
    at: 0,
  };
  return () => view;
}

/**
 * Scores passages `first` to `last - 1` exactly into `top` (as `scorePassages` in block-max.ts:
 * the same products added in the same order, so the same scores); returns the passages scored.
 */
export function scoreRange(
  forward: ForwardView,
  first: number,
  last: number,
  termWeights: Float64Array,
  filter: PassageFilter | undefined,
  top: TopK,
): number {
  const { offsets, terms, impacts, at } = forward;
  let threshold = top.threshold;
  let scored = 0;
  for (let p = first; p < last; p++) {
    if (!accepts(filter, p)) continue;
    let score = 0;
    const end = offsets[p + 1]! - at;
    // Terms outside the query have weight 0: adding 0 leaves the sum (and its rounding) as is.
    for (let j = offsets[p]! - at; j < end; j++) score += termWeights[terms[j]!]! * impacts[j]!;
    scored++;
    if (score > 0 && score >= threshold) {
      top.offer(score, p);
      threshold = top.threshold;
    }
  }
  return scored;
}

/**
 * `scoreRange` for integer impacts and weights whose every score fits 31 bits: the same exact
 * sums (integers), added in two independent chains, about twice as fast as one chain of
 * floating-point adds (which must stay in term order for float-mode scores to be bit-identical).
 */
export function scoreRangeInt(
  forward: ForwardView,
  first: number,
  last: number,
  termWeights: Int32Array,
  filter: PassageFilter | undefined,
  top: TopK,
): number {
  const { offsets, terms, impacts, at } = forward;
  let threshold = top.threshold;
  let scored = 0;
  for (let p = first; p < last; p++) {
    if (!accepts(filter, p)) continue;
    let even = 0;
    let odd = 0;
    const end = offsets[p + 1]! - at;
    let j = offsets[p]! - at;
    for (; j + 1 < end; j += 2) {
      even = (even + termWeights[terms[j]!]! * impacts[j]!) | 0;
      odd = (odd + termWeights[terms[j + 1]!]! * impacts[j + 1]!) | 0;
    }
    if (j < end) even = (even + termWeights[terms[j]!]! * impacts[j]!) | 0;
    const score = even + odd;
    scored++;
    if (score > 0 && score >= threshold) {
      top.offer(score, p);
      threshold = top.threshold;
    }
  }
  return scored;
}
