/**
 * Top-k retrieval with MaxScore (Turtle & Flood 1995). Query terms are ordered
 * by their score bound; the longest prefix whose bounds sum to at most the current k-th score
 * is "non-essential": a document that matches none of the other ("essential") terms cannot
 * enter the top k, so candidates come from the essential lists only, and non-essential lists
 * are probed (skipping forward) only while the document could still make it. The result is
 * exactly the top k of exhaustive scoring, ties going to the lower document number.
 */
import type { Bm25Index } from './bm25-index.js';
import { advance, cursorsFor, firstAtOrAfter, type Cursors } from './cursors.js';
import { createScratch, MAX_WINDOW, type SearchScratch } from './search-scratch.js';
import type { DocFilter, TopDocs, WeightedTerm } from './search-types.js';
import { TopKHeap } from './top-k-heap.js';

/** The first window is small, so the k-th score (and pruning) is known early. */
const FIRST_WINDOW = 256;

/**
 * The best `k` documents for `terms` (optionally restricted to one subset label).
 *
 * Like Lucene's MaxScoreBulkScorer, documents are processed in windows (256 documents, doubling
 * up to 4,096): the essential lists are accumulated term-at-a-time into the window (tight loops
 * over typed arrays), then each touched document, in increasing order, is completed from the
 * non-essential lists while its bound can still beat the k-th score. Between windows the
 * essential set shrinks as the k-th score rises.
 *
 * @example
 * const top = maxScoreSearch(index, [{ term: index.termId('wing'), weight: index.idf(index.termId('wing')) }], 10);
 */
export function maxScoreSearch(
  index: Bm25Index,
  terms: readonly WeightedTerm[],
  k: number,
  filter?: DocFilter,
  scratch: SearchScratch = createScratch(),
): TopDocs {
  const c = cursorsFor(index, terms);
  const heap = (scratch.heap ??= new TopKHeap(k)).reset(k);
  let firstEssential = 0;
  for (let size = FIRST_WINDOW; ; size = Math.min(size * 2, MAX_WINDOW)) {
    const start = nextDoc(c, firstEssential);
    if (start < 0) break;
    const window = { start, size };
    const touched = accumulate(index, c, firstEssential, window, scratch);
    completeWindow(index, c, firstEssential, window, touched, scratch, heap, filter);
    if (heap.full) {
      const t = heap.threshold;
      while (firstEssential < c.pos.length && c.cum[firstEssential]! <= t) firstEssential++;
    }
  }
  return heap.drain();
}

/** The smallest current document of the essential lists, or -1 when they are exhausted. */
function nextDoc(c: Cursors, firstEssential: number): number {
  let min = 0x7fffffff;
  for (let i = firstEssential; i < c.pos.length; i++) {
    const p = c.pos[i]!;
    const docs = c.docs[i]!;
    if (p < c.end[i]! && docs[p]! < min) min = docs[p]!;
  }
  return min === 0x7fffffff ? -1 : min;
}

/** Documents [start, start + size). */
interface Span {
  start: number;
  size: number;
}

/** Adds the essential lists' scores for the window's documents; returns how many were touched. */
function accumulate(
  index: Bm25Index,
  c: Cursors,
  firstEssential: number,
  { start, size }: Span,
  w: SearchScratch,
): number {
  const { acc, touched } = w;
  const limit = start + size;
  let n = 0;
  for (let i = firstEssential; i < c.pos.length; i++) {
    n = addList(index, c, i, start, limit, acc, touched, n);
  }
  return n;
}

/**
 * Adds cursor i's postings below `limit` to the window's accumulators and moves the cursor
 * past them. With `touched`, slots seen for the first time are recorded there from `n` on;
 * returns the new count.
 */
function addList(
  index: Bm25Index,
  c: Cursors,
  i: number,
  start: number,
  limit: number,
  acc: Float64Array,
  touched: Int32Array | undefined,
  n: number,
): number {
  const docs = c.docs[i]!;
  const impacts = c.impacts[i]!;
  const weight = c.weight[i]!;
  const end = c.end[i]!;
  let p = c.pos[i]!;
  for (; p < end; p++) {
    const doc = docs[p]!;
    if (doc >= limit) break;
    const slot = doc - start;
    if (touched !== undefined && acc[slot] === 0) touched[n++] = slot;
    acc[slot]! += weight * impacts[p]!;
  }
  c.pos[i] = p;
  return n;
}

/** Completes and offers the window's documents in increasing order, then clears the window. */
function completeWindow(
  index: Bm25Index,
  c: Cursors,
  firstEssential: number,
  { start, size }: Span,
  n: number,
  w: SearchScratch,
  heap: TopKHeap,
  filter: DocFilter | undefined,
): void {
  const { acc, touched } = w;
  // Few documents: sort their slots; many: walking the window is cheaper.
  const dense = n * 8 > size;
  if (!dense) touched.subarray(0, n).sort();
  // The last window may reach past the last document.
  const count = dense ? Math.min(size, index.numDocs - start) : n;
  const complete = dense
    ? !addNonEssentialIfCheaper(index, c, firstEssential, start, count, n, w)
    : true;
  let threshold = heap.threshold;
  for (let j = 0; j < count; j++) {
    const slot = dense ? j : touched[j]!;
    const essential = acc[slot]!;
    if (essential === 0) continue;
    acc[slot] = 0;
    const doc = start + slot;
    if (filter !== undefined && filter.labels[doc] !== filter.wanted) continue;
    const score = complete
      ? completeDoc(index, c, firstEssential, doc, essential, threshold)
      : essential;
    if (score > threshold) {
      heap.offer(doc, score);
      threshold = heap.threshold;
    }
  }
}

/**
 * In a dense window, adding the non-essential lists' postings term by term (as `accumulate`
 * does for the essential ones) costs less than probing each list for each document when they
 * hold fewer postings in the window than the probes would make. They are added in the order
 * `completeDoc` adds them, so scores are the same to the last bit; a document they alone
 * touch cannot beat the threshold (that is what non-essential means), so it is never offered.
 * Returns whether it did.
 */
function addNonEssentialIfCheaper(
  index: Bm25Index,
  c: Cursors,
  firstEssential: number,
  start: number,
  count: number,
  touchedCount: number,
  w: SearchScratch,
): boolean {
  if (firstEssential === 0) return true;
  const limit = start + count;
  let postings = 0;
  for (let i = 0; i < firstEssential; i++) postings += firstAtOrAfter(c, i, limit) - c.pos[i]!;
  if (postings > touchedCount * firstEssential) return false;
  for (let i = firstEssential - 1; i >= 0; i--) {
    addList(index, c, i, start, limit, w.acc, undefined, 0);
  }
  return true;
}

/** Adds the non-essential lists' scores to a document while it can still beat `threshold`. */
function completeDoc(
  index: Bm25Index,
  c: Cursors,
  firstEssential: number,
  doc: number,
  essential: number,
  threshold: number,
): number {
  let score = essential;
  for (let i = firstEssential - 1; i >= 0; i--) {
    if (score + c.cum[i]! <= threshold) return score;
    advance(c, i, doc);
    const p = c.pos[i]!;
    if (p < c.end[i]! && c.docs[i]![p]! === doc) {
      score += c.weight[i]! * c.impacts[i]![p]!;
    }
  }
  return score;
}
