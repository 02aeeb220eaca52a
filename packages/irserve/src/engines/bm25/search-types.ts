/**
 * The shapes every BM25 top-k search shares (MaxScore, exhaustive, bucket selection): the
 * query's weighted terms, a subset filter and the result. They sit here, below the search
 * files, so those files import them and not each other.
 */

/** One query term as a search sees it. */
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

/**
 * Documents and their scores, best first. Plain arrays: a typed array of more than 64 bytes
 * gets a buffer of its own outside V8's heap, about 1.5 µs to allocate (twice that a search
 * at top 100, a tenth of a whole Cranfield query), where these cost a fifth of that.
 */
export interface TopDocs {
  docs: number[];
  scores: number[];
}
