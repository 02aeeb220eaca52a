import type { RowStore } from './row-store.js';

/** Similarity the index ranks by. Scores are always higher-is-better. */
export type Metric = 'ip' | 'l2';

/** Scores `count` stored rows starting `byteOffset` bytes into `bytes`; writes `out[0..count)`. */
export type RowScorer = (
  bytes: Uint8Array,
  byteOffset: number,
  count: number,
  out: Float32Array,
) => void;

export interface SearchOptions {
  /** IVF: how many inverted lists to scan (default: the index's, 1 like faiss). */
  nprobe?: number;
  /** HNSW: size of the dynamic candidate list (default: the index's, 16 like faiss). */
  efSearch?: number;
}

/**
 * `n * k` results, row-major. Labels are vector positions (-1 where fewer than `k` exist).
 * Scores are the inner product, or for `l2` the negative squared distance, so that a higher
 * score is always better.
 */
export interface SearchResult {
  labels: Int32Array;
  scores: Float32Array;
}

export interface VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  /** The faiss-style factory string the index was built from (`Flat`, `HNSW32,SQ8`, ...). */
  readonly factory: string;
  /** `queries` holds `n * dim` floats; returns `n * k` results. */
  search(queries: Float32Array, k: number, options?: SearchOptions): SearchResult;
  /** Releases what searching started (helper threads); the index stays usable. */
  close?(): void;
  /** The stored (or, for PQ, reconstructed) vector at `position`, where the index keeps one. */
  vector?(position: number): Float32Array;
  /** The stored rows (vectors or codes) of a scanned or IVF index: in memory or paged. */
  readonly rows?: RowStore;
}

/** Allocates an empty result: labels -1, scores -Infinity. */
export function emptyResult(n: number, k: number): SearchResult {
  return {
    labels: new Int32Array(n * k).fill(-1),
    scores: new Float32Array(n * k).fill(-Infinity),
  };
}

/** Throws unless `queries` is a whole number of `dim`-vectors and `k` a positive integer. */
export function checkQueries(queries: Float32Array, dim: number, k: number): number {
  if (!(queries instanceof Float32Array)) throw new TypeError('queries must be a Float32Array');
  if (queries.length % dim !== 0) {
    throw new RangeError(`queries hold ${queries.length} floats, not a multiple of dim ${dim}`);
  }
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  return queries.length / dim;
}
