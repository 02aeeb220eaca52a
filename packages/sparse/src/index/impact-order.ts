/**
 * The impact-ordered copy of the inverted index. Each term's postings are cut into slices of
 * passages (the slices in passage order) and sorted by impact inside each slice, largest first
 * (passages ascending among equal impacts). A prefix of a slice holds its heaviest postings and
 * everything after it weighs at most the next impact, which is what the impact-ordered search
 * needs to stop reading early and stay exact. Slices keep its scattered accumulator updates
 * inside one cache-sized range of passages at a time (on a million passages, updates spread over
 * the whole accumulator array cost ten times more). The lists keep the passage-ordered index's
 * offsets (same postings per term).
 */
import type { Impacts } from './types.js';

/** Passages per slice: 65,536 Int32 accumulators are 256 KiB, which stay in a core's cache. */
export const IMPACT_SLICE = 65_536;

export interface ImpactOrdered {
  passages: Uint32Array;
  impacts: Impacts;
}

interface Inverted {
  offsets: Uint32Array;
  passages: Uint32Array;
  impacts: Impacts;
}

/** A counting sort pays off when a slice's impacts span at most this many values per posting. */
const COUNTING_SPAN_PER_POSTING = 4;
/** Slices this short are sorted by insertion. */
const INSERTION_SORT_MAX = 16;

/**
 * Sorts every term's postings by impact (largest first) inside each slice of `slice` passages.
 *
 * @example impactOrder(inverted, IMPACT_SLICE) // same offsets, heaviest postings first per slice
 */
export function impactOrder(inverted: Inverted, slice: number = IMPACT_SLICE): ImpactOrdered {
  const { offsets, passages, impacts } = inverted;
  const out: ImpactOrdered = {
    passages: passages.slice(),
    impacts: impacts.slice(),
  };
  const counts = new Uint32Array(65_537);
  for (let t = 0; t + 1 < offsets.length; t++)
    impactOrderList({ passages, impacts }, offsets[t]!, offsets[t + 1]!, slice, counts, out);
  return out;
}

/**
 * Sorts one term's postings `[start, end)` of `list` by impact inside each slice, into the same
 * positions of `out` (which holds a copy of them). `counts` is scratch of 65,537 entries.
 */
export function impactOrderList(
  list: Omit<Inverted, 'offsets'>,
  start: number,
  end: number,
  slice: number,
  counts: Uint32Array,
  out: ImpactOrdered,
): void {
  const { passages } = list;
  while (start < end) {
    // Passages ascend inside a term's list: its slice ends where the slice number changes.
    const limit = (Math.floor(passages[start]! / slice) + 1) * slice;
    let stop = start + 1;
    while (stop < end && passages[stop]! < limit) stop++;
    sortRange(list, start, stop, counts, out);
    start = stop;
  }
}

function sortRange(
  inverted: Omit<Inverted, 'offsets'>,
  start: number,
  end: number,
  counts: Uint32Array,
  out: ImpactOrdered,
): void {
  if (end - start <= INSERTION_SORT_MAX) return insertionSort(out, start, end);
  let largest = 0;
  for (let j = start; j < end; j++)
    if (inverted.impacts[j]! > largest) largest = inverted.impacts[j]!;
  if (
    inverted.impacts instanceof Uint16Array &&
    largest <= COUNTING_SPAN_PER_POSTING * (end - start)
  )
    countingSort(inverted, start, end, largest, counts, out);
  else comparisonSort(inverted, start, end, out);
}

/** Sorts `out[start, end)` (a copy of the passage-ordered range) by impact, descending, stably. */
function insertionSort(out: ImpactOrdered, start: number, end: number): void {
  for (let i = start + 1; i < end; i++) {
    const passage = out.passages[i]!;
    const impact = out.impacts[i]!;
    let j = i - 1;
    for (; j >= start && out.impacts[j]! < impact; j--) {
      out.passages[j + 1] = out.passages[j]!;
      out.impacts[j + 1] = out.impacts[j]!;
    }
    out.passages[j + 1] = passage;
    out.impacts[j + 1] = impact;
  }
}

/** Stable counting sort of a range of integer impacts, descending. */
function countingSort(
  inverted: Omit<Inverted, 'offsets'>,
  start: number,
  end: number,
  largest: number,
  counts: Uint32Array,
  out: ImpactOrdered,
): void {
  const { passages, impacts } = inverted;
  counts.fill(0, 0, largest + 2);
  // counts[largest - impact + 1] counts the postings of that impact; prefix sums give slots.
  for (let j = start; j < end; j++) counts[largest - impacts[j]! + 1]!++;
  for (let i = 1; i <= largest + 1; i++) counts[i]! += counts[i - 1]!;
  for (let j = start; j < end; j++) {
    const slot = start + counts[largest - impacts[j]!]!++;
    out.passages[slot] = passages[j]!;
    out.impacts[slot] = impacts[j]!;
  }
}

/** Sorts a range by impact descending, then position (passage order). */
function comparisonSort(
  inverted: Omit<Inverted, 'offsets'>,
  start: number,
  end: number,
  out: ImpactOrdered,
): void {
  const { passages, impacts } = inverted;
  const positions = Uint32Array.from({ length: end - start }, (_, i) => start + i);
  positions.sort((a, b) => impacts[b]! - impacts[a]! || a - b);
  for (let i = 0; i < positions.length; i++) {
    out.passages[start + i] = passages[positions[i]!]!;
    out.impacts[start + i] = impacts[positions[i]!]!;
  }
}
