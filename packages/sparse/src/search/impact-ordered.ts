/**
 * Safe impact-ordered search (score-at-a-time with exact completion). Each query term's
 * postings are read heaviest first, from the impact-ordered copy of the index, in rounds: a
 * round reads, in every list, the postings whose contribution (`weight * impact`) reaches the
 * round's level, and the level falls geometrically. After a round, `rest` (the sum over terms
 * of `weight * next impact`) bounds what any passage can still gain. Once `rest` is below a
 * lower bound of the k-th score, no passage left untouched can enter the top k; the touched
 * ones whose partial sum plus `rest` can still reach it are the candidates, and further rounds
 * (touching nobody new) shrink them until scoring them exactly from the forward index costs
 * less than reading on. Nothing that could enter the top k is skipped, so the result equals
 * exhaustive search; final scores are computed as the exhaustive kernel adds them (ascending
 * term id), so they are bit-identical in float mode too.
 *
 * On SPLADE-like queries this reads the rare, heavy terms' short lists whole and only the
 * heaviest postings of the frequent, light ones, where MaxScore and block-max bounds use each
 * term's single largest impact and so cannot skip them.
 */
import type { ImpactOrderedIndex } from '../index/types.js';
import {
  cursorsOf,
  gatherRound,
  keepCandidates,
  keepCandidatesInOrder,
  markCandidates,
  narrowRound,
  restBound,
  topContribution,
  type Rising,
  type Rounds,
} from './impact-rounds.js';
import { maxScoreScratch } from './max-score.js';
import { FLOAT_SLACK, bestPartials, exactKth, exactScore } from './partial-scores.js';
import type { QueryTerms } from './query-terms.js';
import { TopK } from './top-k.js';
import { accepts, type PassageHits, type SearchOptions } from './types.js';

/** Per-searcher scratch; accumulators and term weights are all zero between calls. */
export interface ImpactOrderedScratch {
  ints: Int32Array;
  floats: Float64Array;
  touched: Uint32Array;
  termWeights: Float64Array;
  termMax: Float64Array;
  rising: Uint32Array;
  seen: Uint8Array;
  /** One bit per passage: the candidates while narrowing. */
  candidates: Uint32Array;
}

/** Each round's level is this fraction of the previous one's. */
const LEVEL_DECAY = 0.7;
/**
 * Scratch for `impactOrderedSearch` over `index` (one per concurrent searcher).
 *
 * @example const scratch = impactOrderedScratch(index);
 */
export function impactOrderedScratch(index: ImpactOrderedIndex): ImpactOrderedScratch {
  const passages = index.passageIds.length;
  return {
    ...maxScoreScratch(index),
    rising: new Uint32Array(passages),
    seen: new Uint8Array(passages),
    candidates: new Uint32Array(Math.ceil(passages / 32)),
  };
}

/** One search's state. */
interface Search extends Rounds {
  options: SearchOptions;
  termWeights: Float64Array;
  /** 1 for exact integer sums; a margin above 1 for float sums. */
  slack: number;
  /** Postings, passages and forward entries read. */
  work: number;
  /** A lower bound of the final k-th score. */
  threshold: number;
  /** Forward entries per passage, on average: the cost of one exact score. */
  forwardPerPassage: number;
  /** Whether accumulators outside the touched list may be non-zero (zeroed at the end). */
  dirty: boolean;
  /** The passages of the k best partial sums at the last look. */
  best: Int32Array;
}

/**
 * Reads rounds of falling level until no untouched passage can enter the top k (or every list
 * is read). Returns `rest`, what the unread postings can still add to one passage.
 */
function gather(search: Search, risingPassages: Uint32Array, seen: Uint8Array): number {
  const { index, cursors, touched, options } = search;
  search.level = topContribution(index, cursors) * LEVEL_DECAY;
  const rising: Rising = { passages: risingPassages, count: 0, floor: Infinity };
  for (;;) {
    const read = gatherRound(search, rising);
    search.work += read;
    const rest = restBound(index, cursors);
    if (rest === 0) return 0;
    const best =
      rising.floor === Infinity || rising.count === rising.passages.length
        ? bestPartials(touched, options, new Int32Array(0), 0)
        : bestPartials(touched, options, mergedPool(search.best, rising, seen), touched.count);
    search.work += best.work;
    search.best = best.top.sorted().ids;
    rising.count = 0;
    rising.floor = best.top.full ? best.top.threshold : Infinity;
    search.threshold = Math.max(search.threshold, best.top.threshold);
    // Their exact scores lift the bound further, worth it while k is small against a round.
    if (best.top.full && options.k * search.forwardPerPassage <= read) {
      const exact = exactKth(index, search.termWeights, search.best, options.k);
      search.threshold = Math.max(search.threshold, exact.threshold);
      search.work += exact.work;
    }
    if (rest * search.slack < search.threshold) return rest;
    search.level *= LEVEL_DECAY;
  }
}

/** The last look's best passages and the rising ones, each once. */
function mergedPool(best: Int32Array, rising: Rising, seen: Uint8Array): Int32Array {
  const pool = new Int32Array(best.length + rising.count);
  let size = 0;
  const add = (p: number) => {
    if (seen[p] === 0) {
      seen[p] = 1;
      pool[size++] = p;
    }
  };
  best.forEach(add);
  for (let i = 0; i < rising.count; i++) add(rising.passages[i]!);
  for (let i = 0; i < size; i++) seen[pool[i]!] = 0;
  return pool.subarray(0, size);
}

/**
 * Narrows the touched passages to those that can still reach the k-th score, reading further
 * rounds (which touch nobody new) while the last one cut the cost of scoring the candidates
 * exactly by more than it read. Returns the final `rest`.
 */
function narrow(search: Search, rest: number, bits: Uint32Array): number {
  const { index, cursors, touched, options } = search;
  const exact = exactKth(index, search.termWeights, search.best, options.k);
  search.threshold = Math.max(search.threshold, exact.threshold);
  search.work += exact.work;
  const floor = search.threshold / search.slack - rest;
  search.dirty = keepCandidatesInOrder(touched, Math.max(floor, Number.MIN_VALUE));
  if (search.dirty) search.work += index.passageIds.length;
  else keepCandidates(touched, floor, options.filter);
  markCandidates(touched, bits, true);
  const { forwardPerPassage } = search;
  let lastRound = 0;
  let saved = Infinity;
  while (rest > 0 && touched.count * forwardPerPassage > lastRound && saved >= lastRound) {
    const before = touched.count;
    search.level *= LEVEL_DECAY;
    lastRound = narrowRound(search, bits);
    search.work += lastRound + touched.count;
    rest = restBound(index, cursors);
    keepCandidates(touched, search.threshold / search.slack - rest, options.filter, bits);
    saved = (before - touched.count) * forwardPerPassage;
  }
  markCandidates(touched, bits, false);
  return rest;
}

/**
 * The k best of the candidates, scored exactly (from the forward index unless `exact`:
 * integer sums with every list read); zeroes every accumulator left.
 */
function finish(search: Search, rest: number, exact: boolean): PassageHits {
  const { index, touched, options } = search;
  const { accumulators, passages } = touched;
  const top = new TopK(options.k);
  let floor = search.threshold;
  let scored = 0;
  for (let i = 0; i < touched.count; i++) {
    const p = passages[i]!;
    const partial = accumulators[p]!;
    // A passage listed twice (a float contribution that rounded to 0) is seen once.
    if (partial === 0) continue;
    accumulators[p] = 0;
    if ((partial + rest) * search.slack < floor || !accepts(options.filter, p)) continue;
    let score = partial;
    if (!exact) {
      score = exactScore(index, search.termWeights, p);
      search.work += index.forwardOffsets[p + 1]! - index.forwardOffsets[p]!;
    }
    scored++;
    top.offer(score, p);
    floor = Math.max(floor, top.threshold);
  }
  return { ...top.sorted(), work: search.work, scored };
}

/**
 * The top k passages, equal to `exhaustiveSearch`'s, reading the heaviest postings first.
 *
 * @example impactOrderedSearch(index, query, { k: 10 }, impactOrderedScratch(index))
 */
export function impactOrderedSearch(
  index: ImpactOrderedIndex,
  query: QueryTerms,
  options: SearchOptions,
  scratch: ImpactOrderedScratch,
): PassageHits {
  if (options.k < 1)
    return { ids: new Int32Array(0), scores: new Float64Array(0), work: 0, scored: 0 };
  let largest = 0;
  for (let i = 0; i < query.terms.length; i++) {
    scratch.termWeights[query.terms[i]!] = query.weights[i]!;
    largest += query.weights[i]! * scratch.termMax[query.terms[i]!]!;
  }
  const integer = index.quantization > 0 && largest < 2 ** 31;
  const search: Search = {
    index,
    options,
    cursors: cursorsOf(index, query),
    touched: {
      accumulators: integer ? scratch.ints : scratch.floats,
      passages: scratch.touched,
      count: 0,
    },
    termWeights: scratch.termWeights,
    slack: integer ? 1 : FLOAT_SLACK,
    work: 0,
    threshold: -Infinity,
    level: 0,
    best: new Int32Array(0),
    dirty: false,
    forwardPerPassage: index.forwardTerms.length / Math.max(1, index.passageIds.length),
  };
  let rest = gather(search, scratch.rising, scratch.seen);
  if (rest > 0) rest = narrow(search, rest, scratch.candidates);
  const hits = finish(search, rest, rest === 0 && integer);
  if (search.dirty) search.touched.accumulators.fill(0);
  for (let i = 0; i < query.terms.length; i++) scratch.termWeights[query.terms[i]!] = 0;
  return hits;
}
