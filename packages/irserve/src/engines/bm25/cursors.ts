/**
 * Cursors over the posting lists of a query's terms, ordered by score bound, for MaxScore
 * (max-score.ts): each term's list (its documents and impacts, from position 0, in memory or
 * read from the index file), where the cursor is in it, its weight, and the running sum of the
 * bounds.
 */
import type { Bm25Index } from './bm25-index.js';
import type { WeightedTerm } from './search-types.js';

/** Bounds are inflated by this factor so rounding in sums never prunes a real candidate. */
const BOUND_SLACK = 1 + 1e-9;

/** Per-term cursors, in increasing order of score bound. */
export interface Cursors {
  /** Each term's documents (ascending) and impacts. */
  docs: Int32Array[];
  impacts: Float32Array[];
  pos: Int32Array;
  end: Int32Array;
  weight: Float64Array;
  /** cum[i]: sum of the bounds of terms 0..i. */
  cum: Float64Array;
}

export function cursorsFor(index: Bm25Index, terms: readonly WeightedTerm[]): Cursors {
  // Plain loops and one small sort: this runs once per query, and on a small collection the
  // closures and objects of a map/filter chain cost as much as the search.
  const bounds = new Float64Array(terms.length);
  const order: number[] = [];
  for (let i = 0; i < terms.length; i++) {
    const { term, weight } = terms[i]!;
    if (term < 0 || weight <= 0 || index.docFreq(term) === 0) continue;
    bounds[i] = weight * index.maxImpact(term) * BOUND_SLACK; // fills the term's impacts
    order.push(i);
  }
  order.sort((x, y) => bounds[x]! - bounds[y]!); // stable: equal bounds keep query order
  const m = order.length;
  const cursors: Cursors = {
    docs: new Array<Int32Array>(m),
    impacts: new Array<Float32Array>(m),
    pos: new Int32Array(m),
    end: new Int32Array(m),
    weight: new Float64Array(m),
    cum: new Float64Array(m),
  };
  let cum = 0;
  for (let i = 0; i < m; i++) {
    const t = terms[order[i]!]!;
    const list = index.list(t.term);
    cursors.docs[i] = list.docs;
    cursors.impacts[i] = list.impacts;
    cursors.end[i] = list.docs.length;
    cursors.weight[i] = t.weight;
    cum += bounds[order[i]!]!;
    cursors.cum[i] = cum;
  }
  return cursors;
}

/** Moves cursor i to the first posting with a document >= target (galloping search). */
export function advance(c: Cursors, i: number, target: number): void {
  const docs = c.docs[i]!;
  let lo = c.pos[i]!;
  const end = c.end[i]!;
  if (lo >= end || docs[lo]! >= target) return;
  let step = 1;
  let hi = lo + 1;
  while (hi < end && docs[hi]! < target) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > end) hi = end;
  // docs[lo] < target; the answer is in (lo, hi].
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < target) lo = mid;
    else hi = mid;
  }
  c.pos[i] = hi;
}

/** The position of cursor i's first posting with a document >= target, cursor left alone. */
export function firstAtOrAfter(c: Cursors, i: number, target: number): number {
  const docs = c.docs[i]!;
  let lo = c.pos[i]!;
  let hi = c.end[i]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
