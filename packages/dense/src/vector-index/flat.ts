import { similarity } from './kernels.js';
import {
  checkQueries,
  emptyResult,
  type Metric,
  type SearchResult,
  type VectorIndex,
} from './types.js';
import { exactSearchRows, fromMatches, ownBuffer } from './usearch-results.js';

export interface FlatOptions {
  /** Threads for batch search (0: all cores). */
  threads?: number;
  factory?: string;
}

/**
 * Exact search over all vectors. Candidates come from usearch's SIMD, multi-threaded
 * `exactSearch`; the scores of the `k` winners are then recomputed in float64 from the stored
 * vectors, so they do not carry usearch's `1 - dot` rounding.
 */
export class FlatIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  readonly vectors: Float32Array;
  readonly #threads: number;

  constructor(vectors: Float32Array, dim: number, metric: Metric, options: FlatOptions = {}) {
    if (vectors.length % dim !== 0) {
      throw new RangeError(`${vectors.length} floats are not a whole number of ${dim}-vectors`);
    }
    this.vectors = ownBuffer(vectors);
    this.dim = dim;
    this.metric = metric;
    this.count = vectors.length / dim;
    this.factory = options.factory ?? 'Flat';
    this.#threads = options.threads ?? 0;
  }

  search(queries: Float32Array, k: number): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    if (n === 0 || this.count === 0) return emptyResult(n, k);
    const kk = Math.min(k, this.count);
    const matches = exactSearchRows(
      this.vectors,
      queries,
      this.dim,
      kk,
      this.metric,
      this.#threads,
    );
    const result = fromMatches(matches, n, k, kk, () => 0);
    this.#rescore(queries, result, k);
    return result;
  }

  #rescore(queries: Float32Array, { labels, scores }: SearchResult, k: number): void {
    const dim = this.dim;
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      if (label < 0) continue;
      const q = Math.floor(i / k);
      scores[i] = similarity(this.metric, queries, q * dim, this.vectors, label * dim, dim);
    }
  }

  vector(position: number): Float32Array {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0..${this.count - 1}`);
    }
    return this.vectors.subarray(position * this.dim, (position + 1) * this.dim);
  }
}
