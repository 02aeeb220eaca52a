/**
 * Lucene's BM25 (Lucene 9+ `BM25Similarity`, the form Anserini uses today):
 *
 *   idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))      N: documents with at least one term
 *   score(t, d) = w * tf / (tf + k1 * (1 - b + b * dl / avgdl)),   w = qtf * idf(t)
 *
 * `dl` is the norm-decoded length (see lucene-norms.ts), `avgdl` the exact mean length, and
 * `qtf` the number of times the term occurs in the query (Anserini's bag-of-words query boosts
 * each term by its count). Lucene 8 multiplied by (k1 + 1); the ranking is the same.
 */
import { normToLength } from './lucene-norms.js';

export interface Bm25Params {
  k1: number;
  b: number;
}

/** Lucene's BM25 idf. */
export function idf(docFreq: number, docCount: number): number {
  return Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
}

/**
 * For each norm byte, `1 / (k1 * (1 - b + b * dl / avgdl))` (Lucene's per-query cache); a term
 * scores `w * impact(tf, table[norm])`.
 */
export function normInverseTable(params: Bm25Params, avgdl: number): Float64Array {
  const table = new Float64Array(256);
  const mean = avgdl > 0 ? avgdl : 1;
  for (let norm = 0; norm < 256; norm++) {
    table[norm] = 1 / (params.k1 * (1 - params.b + (params.b * normToLength(norm)) / mean));
  }
  return table;
}

/**
 * A posting's share of its term's weight, `tf / (tf + k1 * (1 - b + b * dl / avgdl))`, rounded
 * to float32 as the index stores it (Lucene scores in float32 too): searches multiply stored
 * impacts by the query weight, and passages scored here must come out the same.
 */
export function impact(tf: number, normInverse: number): number {
  return Math.fround(1 - 1 / (1 + tf * normInverse));
}

/** One term's contribution: `w * tf / (tf + k1 * (1 - b + b * dl / avgdl))`. */
export function termScore(weight: number, tf: number, normInverse: number): number {
  return weight * impact(tf, normInverse);
}
