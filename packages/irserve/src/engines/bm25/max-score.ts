/**
 * Top-k retrieval with MaxScore (Turtle & Flood 1995), doc-at-a-time. Query terms are ordered
 * by their score bound; the longest prefix whose bounds sum to at most the current k-th score
 * is "non-essential": a document that matches none of the other ("essential") terms cannot
 * enter the top k, so candidates come from the essential lists only, and non-essential lists
 * are probed (skipping forward) only while the document could still make it. The result is
 * exactly the top k of exhaustive scoring, ties going to the lower document number.
 */
import type { Bm25Index } from './bm25-index.js';
import { TopKHeap } from './top-k-heap.js';

export interface WeightedTerm {
  /** Term number in the index. */
  term: number;
  /** Query-side weight: query term frequency times idf. */
  weight: number;
}

/** Keep only documents whose label is `wanted`. */
export interface DocFilter {
  labels: Int32Array;
  wanted: number;
}

export interface TopDocs {
  docs: Int32Array;
  scores: Float64Array;
}

/** Bounds are inflated by this factor so rounding in sums never prunes a real candidate. */
const BOUND_SLACK = 1 + 1e-9;

/** Per-term cursors, in increasing order of score bound. */
interface Cursors {
  pos: Int32Array;
  end: Int32Array;
  weight: Float64Array;
  /** cum[i]: sum of the bounds of terms 0..i. */
  cum: Float64Array;
}

function cursorsFor(index: Bm25Index, terms: readonly WeightedTerm[]): Cursors {
  const bounded = terms
    .filter((t) => t.term >= 0 && t.weight > 0 && index.docFreq(t.term) > 0)
    .map((t) => {
      const x = index.maxTfNorm(t.term);
      return { ...t, bound: (t.weight - t.weight / (1 + x)) * BOUND_SLACK };
    })
    .sort((a, b) => a.bound - b.bound);
  const m = bounded.length;
  const cursors: Cursors = {
    pos: new Int32Array(m),
    end: new Int32Array(m),
    weight: new Float64Array(m),
    cum: new Float64Array(m),
  };
  const start = index.data.postingStart;
  bounded.forEach((t, i) => {
    cursors.pos[i] = start[t.term]!;
    cursors.end[i] = start[t.term + 1]!;
    cursors.weight[i] = t.weight;
    cursors.cum[i] = (i > 0 ? cursors.cum[i - 1]! : 0) + t.bound;
  });
  return cursors;
}

/** Moves cursor i to the first posting with a document >= target (galloping search). */
function advance(docs: Int32Array, c: Cursors, i: number, target: number): void {
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

/**
 * The best `k` documents for `terms` (optionally restricted to one subset label).
 *
 * @example
 * const top = maxScoreSearch(index, [{ term: index.termId('wing'), weight: index.idf(index.termId('wing')) }], 10);
 */
export function maxScoreSearch(
  index: Bm25Index,
  terms: readonly WeightedTerm[],
  k: number,
  filter?: DocFilter,
): TopDocs {
  const c = cursorsFor(index, terms);
  const m = c.pos.length;
  const heap = new TopKHeap(k);
  const { postingDocs: docs, postingTfs: tfs, norms } = index.data;
  const normInverse = index.normInverse;
  let firstEssential = 0;
  for (;;) {
    let candidate = 0x7fffffff;
    for (let i = firstEssential; i < m; i++) {
      const p = c.pos[i]!;
      if (p < c.end[i]! && docs[p]! < candidate) candidate = docs[p]!;
    }
    if (candidate === 0x7fffffff) break;
    const ni = normInverse[norms[candidate]!]!;
    let score = 0;
    for (let i = firstEssential; i < m; i++) {
      const p = c.pos[i]!;
      if (p < c.end[i]! && docs[p]! === candidate) {
        const w = c.weight[i]!;
        score += w - w / (1 + tfs[p]! * ni);
        c.pos[i] = p + 1;
      }
    }
    if (filter !== undefined && filter.labels[candidate] !== filter.wanted) continue;
    const threshold = heap.threshold;
    for (let i = firstEssential - 1; i >= 0; i--) {
      if (score + c.cum[i]! <= threshold) break;
      advance(docs, c, i, candidate);
      const p = c.pos[i]!;
      if (p < c.end[i]! && docs[p]! === candidate) {
        const w = c.weight[i]!;
        score += w - w / (1 + tfs[p]! * ni);
      }
    }
    if (score <= threshold) continue;
    heap.offer(candidate, score);
    if (heap.full) {
      const t = heap.threshold;
      while (firstEssential < m && c.cum[firstEssential]! <= t) firstEssential++;
    }
  }
  return heap.drain();
}
