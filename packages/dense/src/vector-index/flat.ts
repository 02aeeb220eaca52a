import { availableParallelism } from 'node:os';
import { dot, similarity } from './kernels.js';
import { MIN_ROWS_PER_THREAD, ParallelDots } from './simd/parallel-dots.js';
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

/** From this many queries in one call, the batched SIMD kernel beats usearch (bench/dense.mjs). */
const BATCH_KERNEL_MIN_QUERIES = 4;

/**
 * Exact search over all vectors. Candidates come from the WebAssembly SIMD kernel (simd/),
 * over several threads when there are enough vectors, else from usearch's `exactSearch` for
 * one to three queries (bound by reading the vectors) and the kernel for more; the scores of the `k`
 * winners are then recomputed from the stored vectors, so they carry no float32 or usearch
 * `1 - dot` rounding.
 */
export class FlatIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  #vectors: Float32Array;
  readonly #threads: number;
  #batch: ParallelDots | undefined;
  #squaredNorms: Float32Array | undefined;

  constructor(vectors: Float32Array, dim: number, metric: Metric, options: FlatOptions = {}) {
    if (vectors.length % dim !== 0) {
      throw new RangeError(`${vectors.length} floats are not a whole number of ${dim}-vectors`);
    }
    this.#vectors = ownBuffer(vectors);
    this.dim = dim;
    this.metric = metric;
    this.count = vectors.length / dim;
    this.factory = options.factory ?? 'Flat';
    this.#threads = options.threads ?? 0;
  }

  /** The stored vectors, `count * dim` floats. */
  get vectors(): Float32Array {
    return this.#vectors;
  }

  search(queries: Float32Array, k: number): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    if (n === 0 || this.count === 0) return emptyResult(n, k);
    if (n >= BATCH_KERNEL_MIN_QUERIES || this.#parallel()) {
      const result = this.#batchKernel().search(
        this.#vectors,
        this.count,
        queries,
        k,
        this.metric === 'l2' ? this.#norms() : undefined,
      );
      this.#rescore(queries, result, k);
      return result;
    }
    const kk = Math.min(k, this.count);
    const matches = exactSearchRows(
      this.#vectors,
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

  /**
   * Whether searches run on several threads. Their vectors then live in shared memory, which
   * usearch does not accept, so every search (single queries too) uses the kernel.
   */
  #parallel(): boolean {
    return this.#threadCount() > 1 && this.count >= 2 * MIN_ROWS_PER_THREAD;
  }

  #threadCount(): number {
    return this.#threads > 0 ? this.#threads : availableParallelism();
  }

  /**
   * The kernel, made on first batched search. With more than one thread the vectors move to
   * shared memory once (the helper threads read them in place).
   */
  #batchKernel(): ParallelDots {
    if (this.#batch) return this.#batch;
    const threads = this.#threadCount();
    if (this.#parallel() && !(this.#vectors.buffer instanceof SharedArrayBuffer)) {
      const shared = new Float32Array(new SharedArrayBuffer(this.#vectors.byteLength));
      shared.set(this.#vectors);
      this.#vectors = shared;
    }
    return (this.#batch = new ParallelDots(this.dim, threads));
  }

  /** |v|² of every vector, for l2 ranking in the batched kernel. */
  #norms(): Float32Array {
    if (this.#squaredNorms) return this.#squaredNorms;
    const norms = new Float32Array(this.count);
    for (let i = 0; i < this.count; i++) {
      norms[i] = dot(this.#vectors, i * this.dim, this.#vectors, i * this.dim, this.dim);
    }
    return (this.#squaredNorms = norms);
  }

  #rescore(queries: Float32Array, { labels, scores }: SearchResult, k: number): void {
    const dim = this.dim;
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      if (label < 0) continue;
      const q = Math.floor(i / k);
      scores[i] = similarity(this.metric, queries, q * dim, this.#vectors, label * dim, dim);
    }
  }

  vector(position: number): Float32Array {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0..${this.count - 1}`);
    }
    return this.#vectors.subarray(position * this.dim, (position + 1) * this.dim);
  }
}
