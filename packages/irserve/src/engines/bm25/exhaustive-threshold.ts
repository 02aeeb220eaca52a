/**
 * Which top-k algorithm a search uses. The threshold was set with exhaustive scoring in
 * JavaScript (`bench/bm25-strategies.mjs`: SciFact and Cranfield, and copies of them up to 83k
 * documents): 1.6-2.9x faster than MaxScore up to about 20k documents with real queries, still
 * ahead at 45k-83k, while synthetic queries full of very common terms favoured MaxScore from
 * about 5k. Up to 32k documents, then, every posting is scored; above, MaxScore skips what cannot
 * reach the top k. With the WebAssembly posting loop exhaustive scoring is now 2-7x faster than
 * MaxScore up to 22k documents, so the threshold is conservative (docs/bm25.md).
 */

/** Collections of at most this many documents are searched exhaustively. */
export const EXHAUSTIVE_MAX_DOCS = 32_768;

/** Whether a collection of `numDocs` documents is searched exhaustively (else by MaxScore). */
export function searchedExhaustively(numDocs: number): boolean {
  return numDocs <= EXHAUSTIVE_MAX_DOCS;
}
