/**
 * The impact-ordered copy of the inverted index: each term's postings sorted by impact,
 * largest first (passages ascending among equal impacts). Any prefix of such a list holds the
 * term's heaviest postings and everything after it weighs at most the next impact, which is
 * what the impact-ordered search needs to stop reading early and stay exact. The lists keep
 * the passage-ordered index's offsets (same postings per term).
 */
import type { Impacts } from './types.js';

export interface ImpactOrdered {
  passages: Uint32Array;
  impacts: Impacts;
}

/** A counting sort pays off when a term's impacts span at most this many values per posting. */
const COUNTING_SPAN_PER_POSTING = 4;

/**
 * Sorts every term's postings by impact (largest first), keeping passage order among ties.
 *
 * @example impactOrder(offsets, passages, impacts) // same offsets, heaviest postings first
 */
export function impactOrder(
  offsets: Uint32Array,
  passages: Uint32Array,
  impacts: Impacts,
): ImpactOrdered {
  const sortedPassages = new Uint32Array(passages.length);
  const sortedImpacts =
    impacts instanceof Float32Array
      ? new Float32Array(impacts.length)
      : new Uint16Array(impacts.length);
  const counts = new Uint32Array(65_537);
  for (let t = 0; t + 1 < offsets.length; t++) {
    const start = offsets[t]!;
    const end = offsets[t + 1]!;
    if (end === start) continue;
    let largest = 0;
    for (let j = start; j < end; j++) if (impacts[j]! > largest) largest = impacts[j]!;
    const integer = impacts instanceof Uint16Array;
    const out = { passages: sortedPassages, impacts: sortedImpacts };
    if (integer && largest <= COUNTING_SPAN_PER_POSTING * (end - start))
      countingSort(passages, impacts, start, end, largest, counts, out);
    else comparisonSort(passages, impacts, start, end, out);
  }
  return { passages: sortedPassages, impacts: sortedImpacts };
}

/** Stable counting sort of one term's integer impacts, descending. */
function countingSort(
  passages: Uint32Array,
  impacts: Impacts,
  start: number,
  end: number,
  largest: number,
  counts: Uint32Array,
  out: ImpactOrdered,
): void {
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

/** Sorts one term's postings by impact descending, then position (passage order). */
function comparisonSort(
  passages: Uint32Array,
  impacts: Impacts,
  start: number,
  end: number,
  out: ImpactOrdered,
): void {
  const positions = Uint32Array.from({ length: end - start }, (_, i) => start + i);
  positions.sort((a, b) => impacts[b]! - impacts[a]! || a - b);
  for (let i = 0; i < positions.length; i++) {
    out.passages[start + i] = passages[positions[i]!]!;
    out.impacts[start + i] = impacts[positions[i]!]!;
  }
}
