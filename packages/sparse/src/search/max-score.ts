/**
 * Safe term-at-a-time MaxScore with exact completion from the forward index, the engine's
 * default. Query terms are read shortest posting list first (rare, heavy terms: few postings);
 * before each long list, what the unread terms can still add to any passage (the sum of their
 * `weight * largest impact`) is compared with a lower bound of the k-th best score (the k best
 * partial sums, scored exactly). Once the unread terms cannot lift a passage to that score, their
 * long, light lists (the frequent tokens) are never read: a passage no read list touched cannot
 * reach the top k, and a touched one is scored exactly only when its partial sum plus that
 * bound can. Nothing that could enter the top k is skipped, so the result equals exhaustive
 * search; scores add the same products in the same order (ascending term id) as the exhaustive
 * kernel, so they are bit-identical in float mode too.
 */
import type { SparseIndexData } from '../index/types.js';
import { termMaxima } from './exhaustive.js';
import { FLOAT_SLACK, bestPartials, exactKth, exactScore } from './partial-scores.js';
import type { QueryTerms } from './query-terms.js';
import { TopK } from './top-k.js';
import { accepts, type PassageHits, type SearchOptions } from './types.js';

/** Per-searcher scratch; every array is all zero between calls. */
export interface MaxScoreScratch {
  ints: Int32Array;
  floats: Float64Array;
  touched: Uint32Array;
  termWeights: Float64Array;
  /** Largest impact of each term (computed once per index). */
  termMax: Float64Array;
}

/**
 * Scratch for `maxScoreSearch` over `index` (one per concurrent searcher).
 *
 * @example const scratch = maxScoreScratch(index);
 */
export function maxScoreScratch(index: SparseIndexData): MaxScoreScratch {
  const passages = index.passageIds.length;
  return {
    ints: new Int32Array(index.quantization > 0 ? passages : 0),
    floats: new Float64Array(passages),
    touched: new Uint32Array(passages),
    termWeights: new Float64Array(index.terms.length),
    termMax: termMaxima(index),
  };
}

/** A query's terms in reading order (shortest list first) with the bound of each suffix. */
interface ReadingPlan {
  terms: Uint32Array;
  weights: Float64Array;
  /** `suffix[n]`: the most the terms from n on can add to one passage. */
  suffix: Float64Array;
  /** `unreadPostings[n]`: the postings of the terms from n on. */
  unreadPostings: Float64Array;
  /** Whether every score fits an Int32 accumulator. */
  integer: boolean;
}

function readingPlan(
  index: SparseIndexData,
  query: QueryTerms,
  termMax: Float64Array,
): ReadingPlan {
  const { invertedOffsets } = index;
  const length = (t: number) => invertedOffsets[t + 1]! - invertedOffsets[t]!;
  const order = Array.from(query.terms.keys()).sort(
    (a, b) => length(query.terms[a]!) - length(query.terms[b]!) || a - b,
  );
  const terms = Uint32Array.from(order, (i) => query.terms[i]!);
  const weights = Float64Array.from(order, (i) => query.weights[i]!);
  const suffix = new Float64Array(terms.length + 1);
  const unreadPostings = new Float64Array(terms.length + 1);
  for (let n = terms.length - 1; n >= 0; n--) {
    suffix[n] = suffix[n + 1]! + weights[n]! * termMax[terms[n]!]!;
    unreadPostings[n] = unreadPostings[n + 1]! + length(terms[n]!);
  }
  const integer = index.quantization > 0 && suffix[0]! < 2 ** 31;
  return { terms, weights, suffix, unreadPostings, integer };
}

/** Mutable state of one search. */
interface Pass {
  accumulators: Int32Array | Float64Array;
  count: number;
  work: number;
}

/** A lower bound of the final k-th score: the k best partial sums, scored exactly. */
function refreshedBound(
  index: SparseIndexData,
  scratch: MaxScoreScratch,
  pass: Pass,
  options: SearchOptions,
): number {
  const touched = { accumulators: pass.accumulators, passages: scratch.touched, count: pass.count };
  const partial = bestPartials(touched, options, new Int32Array(0), 0);
  pass.work += partial.work;
  if (!partial.top.full) return -Infinity;
  const exact = exactKth(index, scratch.termWeights, partial.top.sorted().ids, options.k);
  pass.work += exact.work;
  return exact.threshold;
}

/**
 * What scoring exactly the touched passages whose partial sum reaches `floor` costs (forward
 * entries), counting only up to `budget`.
 */
function candidateCost(
  index: SparseIndexData,
  pass: Pass,
  touched: Uint32Array,
  floor: number,
  budget: number,
): number {
  const { forwardOffsets } = index;
  let cost = 0;
  let i = 0;
  for (; i < pass.count && cost <= budget; i++) {
    const p = touched[i]!;
    if (pass.accumulators[p]! >= floor) cost += forwardOffsets[p + 1]! - forwardOffsets[p]!;
  }
  pass.work += i;
  return cost;
}

function readList(
  index: SparseIndexData,
  term: number,
  weight: number,
  pass: Pass,
  touched: Uint32Array,
) {
  const { invertedOffsets, invertedPassages, invertedImpacts } = index;
  const accumulators = pass.accumulators;
  const end = invertedOffsets[term + 1]!;
  let count = pass.count;
  for (let j = invertedOffsets[term]!; j < end; j++) {
    const p = invertedPassages[j]!;
    if (accumulators[p] === 0) touched[count++] = p;
    accumulators[p]! += weight * invertedImpacts[j]!;
  }
  pass.count = count;
  pass.work += end - invertedOffsets[term]!;
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
  const plan = readingPlan(index, query, scratch.termMax);
  const pass: Pass = {
    accumulators: plan.integer ? scratch.ints : scratch.floats,
    count: 0,
    work: 0,
  };
  for (let i = 0; i < query.terms.length; i++)
    scratch.termWeights[query.terms[i]!] = query.weights[i]!;
  const slack = plan.integer ? 1 : FLOAT_SLACK;
  let threshold = -Infinity;
  let unread = plan.terms.length;
  let refreshedAt = 0;
  for (let n = 0; n < plan.terms.length; n++) {
    const term = plan.terms[n]!;
    if (n > 0 && pass.count >= options.k) {
      // The bound only rises as lists are read. Refreshing it is a pass over the touched
      // passages: do it each time their number has doubled, so it costs at most twice the reading.
      if (pass.count >= 2 * refreshedAt) {
        threshold = Math.max(threshold, refreshedBound(index, scratch, pass, options));
        refreshedAt = pass.count;
      }
      // Can the unread terms still lift an untouched passage to the k-th score? Then stop,
      // unless the touched passages they could still lift cost more to score exactly than an
      // eighth of the unread postings (reading on lowers what the rest can add).
      if (plan.suffix[n]! * slack < threshold) {
        const floor = threshold / slack - plan.suffix[n]!;
        const budget = (plan.unreadPostings[n]! - plan.unreadPostings[plan.terms.length]!) / 8;
        if (candidateCost(index, pass, scratch.touched, floor, budget) <= budget) {
          unread = n;
          break;
        }
      }
    }
    readList(index, term, plan.weights[n]!, pass, scratch.touched);
  }
  // The final bound filters the passages to score exactly: make it as high as the partial sums
  // allow (unless every list was read into exact integer sums).
  if (unread < plan.terms.length || !plan.integer)
    threshold = Math.max(threshold, refreshedBound(index, scratch, pass, options));
  const hits = complete(index, scratch, pass, options, {
    // Partial sums of an integer query with every list read are its exact scores.
    exact: unread === plan.terms.length && plan.integer,
    gain: plan.suffix[unread]!,
    threshold,
    slack,
  });
  for (let i = 0; i < query.terms.length; i++) scratch.termWeights[query.terms[i]!] = 0;
  return hits;
}

/**
 * Scores the touched passages that can still reach `threshold` (their partial sum plus `gain`,
 * what the unread terms can add) and keeps the k best; zeroes the accumulators.
 */
function complete(
  index: SparseIndexData,
  scratch: MaxScoreScratch,
  pass: Pass,
  options: SearchOptions,
  bound: { exact: boolean; gain: number; threshold: number; slack: number },
): PassageHits {
  const { accumulators, count } = pass;
  const top = new TopK(options.k);
  let floor = bound.threshold;
  let scored = 0;
  for (let c = 0; c < count; c++) {
    const p = scratch.touched[c]!;
    const partial = accumulators[p]!;
    accumulators[p] = 0;
    if ((partial + bound.gain) * bound.slack < floor || !accepts(options.filter, p)) continue;
    scored++;
    let score = partial;
    if (!bound.exact) {
      score = exactScore(index, scratch.termWeights, p);
      pass.work += index.forwardOffsets[p + 1]! - index.forwardOffsets[p]!;
    }
    top.offer(score, p);
    floor = Math.max(floor, top.threshold);
  }
  return { ...top.sorted(), work: pass.work, scored };
}
