/**
 * The rounds of the impact-ordered search: cursors into each query term's impact-ordered list,
 * reading down to a level (touching new passages, or updating only the candidates), the bound
 * on what the unread postings can add, and the cuts that keep the candidates.
 */
import type { ImpactOrderedIndex } from '../index/types.js';
import type { Touched } from './partial-scores.js';
import type { QueryTerms } from './query-terms.js';
import { accepts, type SearchOptions } from './types.js';

/** What a round reads and updates. */
export interface Rounds {
  index: ImpactOrderedIndex;
  cursors: Cursors;
  touched: Touched;
  /** The current round's level: postings contributing at least this much are read. */
  level: number;
}

/**
 * The query's cursors into the impact-ordered lists, one per query term and slice of passages,
 * slice by slice (cursor `slice * terms + i` reads term i in that slice), so a round updates
 * one cache-sized range of accumulators at a time.
 */
export interface Cursors {
  /** Query terms. */
  terms: number;
  /** The weight of each cursor's term. */
  weights: Float64Array;
  at: Uint32Array;
  end: Uint32Array;
  /** Scratch for `restBound`: each term's largest unread impact. */
  largest: Float64Array;
}

/** The first position in `passages[from, to)` holding a passage >= `passage` (ascending). */
function lowerBound(passages: Uint32Array, from: number, to: number, passage: number): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (passages[middle]! < passage) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Cursors at the start of every query term's slices (found in the passage-ordered lists,
 * whose slices hold the same postings).
 *
 * @example const cursors = cursorsOf(index, query);
 */
export function cursorsOf(index: ImpactOrderedIndex, query: QueryTerms): Cursors {
  const { invertedOffsets, invertedPassages, impactSlice } = index;
  const terms = query.terms.length;
  const slices = Math.max(1, Math.ceil(index.passageIds.length / impactSlice));
  const cursors: Cursors = {
    terms,
    weights: new Float64Array(terms * slices),
    at: new Uint32Array(terms * slices),
    end: new Uint32Array(terms * slices),
    largest: new Float64Array(terms),
  };
  for (let i = 0; i < terms; i++) {
    const t = query.terms[i]!;
    const last = invertedOffsets[t + 1]!;
    let start = invertedOffsets[t]!;
    for (let slice = 0; slice < slices; slice++) {
      const c = slice * terms + i;
      const end =
        slice + 1 === slices
          ? last
          : lowerBound(invertedPassages, start, last, (slice + 1) * impactSlice);
      cursors.weights[c] = query.weights[i]!;
      cursors.at[c] = start;
      cursors.end[c] = end;
      start = end;
    }
  }
  return cursors;
}

/**
 * What the unread postings can still add to one passage (0 once every list is read): for each
 * term, its weight times its largest unread impact in any slice.
 */
export function restBound(index: ImpactOrderedIndex, cursors: Cursors): number {
  const { impactImpacts } = index;
  const { at, end, largest, terms } = cursors;
  largest.fill(0);
  for (let c = 0; c < at.length; c++) {
    if (at[c]! === end[c]!) continue;
    const impact = impactImpacts[at[c]!]!;
    if (impact > largest[c % terms]!) largest[c % terms] = impact;
  }
  let rest = 0;
  for (let i = 0; i < terms; i++) rest += cursors.weights[i]! * largest[i]!;
  return rest;
}

/** The largest contribution of any unread posting. */
export function topContribution(index: ImpactOrderedIndex, cursors: Cursors): number {
  let top = 0;
  for (let i = 0; i < cursors.at.length; i++)
    if (cursors.at[i]! < cursors.end[i]!)
      top = Math.max(top, cursors.weights[i]! * index.impactImpacts[cursors.at[i]!]!);
  return top;
}

/**
 * Passages whose partial sum reached `floor` (the k-th best partial sum at the last look) when
 * last updated: with the k best of that look, they hold the k best partial sums now, so a
 * round's bound needs no pass over every touched passage. Listed once per update (so maybe
 * more than once); past `passages.length` entries the list gives up and a full pass is made.
 */
export interface Rising {
  passages: Uint32Array;
  count: number;
  floor: number;
}

/**
 * Reads every posting whose contribution reaches `level`: a passage seen for the first time
 * joins the touched list, one whose sum reaches `rising.floor` the rising list. Returns the
 * postings read.
 */
export function gatherRound(search: Rounds, rising: Rising): number {
  const { impactPassages, impactImpacts } = search.index;
  const { cursors, touched, level } = search;
  const { accumulators, passages } = touched;
  const { floor } = rising;
  const capacity = rising.passages.length;
  let read = 0;
  let count = touched.count;
  let risen = rising.count;
  for (let i = 0; i < cursors.at.length; i++) {
    const weight = cursors.weights[i]!;
    const end = cursors.end[i]!;
    const start = cursors.at[i]!;
    let j = start;
    for (; j < end && weight * impactImpacts[j]! >= level; j++) {
      const p = impactPassages[j]!;
      if (accumulators[p] === 0) passages[count++] = p;
      const sum = (accumulators[p]! += weight * impactImpacts[j]!);
      if (sum >= floor && risen < capacity) rising.passages[risen++] = p;
    }
    cursors.at[i] = j;
    read += j - start;
  }
  touched.count = count;
  rising.count = risen;
  return read;
}

/**
 * Reads every posting whose contribution reaches `level`, updating only the candidates. Most
 * postings are not theirs: a bit per passage (small enough to stay in cache) tells, so the
 * accumulators are touched only for candidates. Returns the postings read.
 */
export function narrowRound(search: Rounds, candidates: Uint32Array): number {
  const { impactPassages, impactImpacts } = search.index;
  const { cursors, level } = search;
  const accumulators = search.touched.accumulators;
  let read = 0;
  for (let i = 0; i < cursors.at.length; i++) {
    const weight = cursors.weights[i]!;
    const end = cursors.end[i]!;
    const start = cursors.at[i]!;
    let j = start;
    for (; j < end && weight * impactImpacts[j]! >= level; j++) {
      const p = impactPassages[j]!;
      if ((candidates[p >>> 5]! & (1 << (p & 31))) !== 0)
        accumulators[p]! += weight * impactImpacts[j]!;
    }
    cursors.at[i] = j;
    read += j - start;
  }
  return read;
}

/**
 * A pass in passage order over every accumulator costs about as much as visiting this many
 * times fewer touched passages in the scattered order they were first touched.
 */
const SEQUENTIAL_SCAN_ADVANTAGE = 16;

/** Keeps the touched passages that can still reach `floor`, zeroing the others' sums and bits. */
export function keepCandidates(
  touched: Touched,
  floor: number,
  filter: SearchOptions['filter'],
  bits?: Uint32Array,
): void {
  const { accumulators, passages } = touched;
  let kept = 0;
  for (let i = 0; i < touched.count; i++) {
    const p = passages[i]!;
    if (accumulators[p]! >= floor && accepts(filter, p)) passages[kept++] = p;
    else drop(accumulators, p, bits);
  }
  touched.count = kept;
}

/**
 * The first cut when the touched passages are many: one pass in passage order lists those
 * whose sum reaches `floor` (> 0), and leaves the others' sums
 * for one `fill(0)` at the end of the search. Returns false (doing nothing) when going
 * through the touched list is cheaper.
 */
export function keepCandidatesInOrder(touched: Touched, floor: number): boolean {
  const { accumulators, passages } = touched;
  const size = accumulators.length;
  if (touched.count * SEQUENTIAL_SCAN_ADVANTAGE <= size) return false;
  let kept = 0;
  for (let p = 0; p < size; p++) if (accumulators[p]! >= floor) passages[kept++] = p;
  touched.count = kept;
  return true;
}

function drop(accumulators: Int32Array | Float64Array, p: number, bits?: Uint32Array): void {
  accumulators[p] = 0;
  if (bits) bits[p >>> 5]! &= ~(1 << (p & 31));
}

/** Sets (or clears) the bit of every listed passage. */
export function markCandidates(touched: Touched, bits: Uint32Array, on: boolean): void {
  for (let i = 0; i < touched.count; i++) {
    const p = touched.passages[i]!;
    if (on) bits[p >>> 5]! |= 1 << (p & 31);
    else bits[p >>> 5]! &= ~(1 << (p & 31));
  }
}
