/**
 * The in-memory (and on-disk) inverted index: typed arrays only, so it is written and loaded
 * as whole buffers. Terms and document ids are UTF-8 blobs with offsets; terms are sorted by
 * their bytes, so a term is found by binary search without building a map.
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

export interface IndexArrays {
  /** Sorted term bytes, term t at `termBytes[termOffsets[t] .. termOffsets[t + 1]]`. */
  termBytes: Uint8Array;
  termOffsets: Uint32Array;
  /** Postings of term t: `postingStart[t] .. postingStart[t + 1]` (df = the difference). */
  postingStart: Int32Array;
  /** Document numbers, ascending within each term. */
  postingDocs: Int32Array;
  /** Term frequencies (saturated at 65,535). */
  postingTfs: Uint16Array;
  /** Lucene norm byte of each document's length. */
  norms: Uint8Array;
  /** Document ids, doc d at `idBytes[idOffsets[d] .. idOffsets[d + 1]]`. */
  idBytes: Uint8Array;
  idOffsets: Uint32Array;
}

export interface IndexData extends IndexArrays {
  stats: IndexStats;
  /** SHA-256 of the arrays as stored (the file's checksum), once read from a file. */
  digest?: string;
}

/** The names of the arrays, in file order. */
export const ARRAY_NAMES = [
  'termBytes',
  'termOffsets',
  'postingStart',
  'postingDocs',
  'postingTfs',
  'norms',
  'idBytes',
  'idOffsets',
] as const satisfies readonly (keyof IndexArrays)[];
