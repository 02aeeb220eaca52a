/**
 * The inverted index as typed arrays. Terms and document ids are UTF-8 blobs with offsets;
 * terms are sorted by their bytes, so a term is found by binary search without building a map.
 * The heads (terms, list bounds, norms, ids: a few bytes per term and per document) are always
 * in memory; the posting lists (6 bytes a posting) are in memory too, or read from the index
 * file on demand (posting-store.ts).
 */

export interface IndexStats {
  /** Documents in the index, empty ones included. */
  numDocs: number;
  /** Documents with at least one term (Lucene's `docCount`, the N of idf). */
  docCount: number;
  /** Terms in all documents (Lucene's `sumTotalTermFreq`). */
  sumTotalTermFreq: number;
  numTerms: number;
  numPostings: number;
}

export interface IndexHeads {
  /** Sorted term bytes, term t at `termBytes[termOffsets[t] .. termOffsets[t + 1]]`. */
  termBytes: Uint8Array;
  termOffsets: Uint32Array;
  /**
   * Postings of term t: `postingStart[t] .. postingStart[t + 1]` (df = the difference).
   * Unsigned: an index may hold up to 2^32 - 1 postings.
   */
  postingStart: Uint32Array;
  /** Lucene norm byte of each document's length. */
  norms: Uint8Array;
  /** Document ids, doc d at `idBytes[idOffsets[d] .. idOffsets[d + 1]]`. */
  idBytes: Uint8Array;
  idOffsets: Uint32Array;
  stats: IndexStats;
  /** SHA-256 of the arrays as stored (the file's checksum), once read from a file. */
  digest?: string;
}

export interface ResidentPostings {
  /** Document numbers, ascending within each term. */
  postingDocs: Int32Array;
  /** Term frequencies (saturated at 65,535). */
  postingTfs: Uint16Array;
}

/** A whole index in memory (as built, or as read). */
export interface IndexData extends IndexHeads, ResidentPostings {}

/** The arrays of the heads, in file order. */
export const HEAD_NAMES = [
  'termBytes',
  'termOffsets',
  'postingStart',
  'norms',
  'idBytes',
  'idOffsets',
] as const satisfies readonly (keyof IndexHeads)[];

/** The posting arrays, after the heads in the file. */
export const POSTING_NAMES = [
  'postingDocs',
  'postingTfs',
] as const satisfies readonly (keyof ResidentPostings)[];
