import { availableParallelism } from 'node:os';
import { dot, similarity } from './kernels.js';
import { ParallelDots } from './simd/parallel-dots.js';
import { shareVectors, sharedView } from './simd/shared-vectors.js';
import {
  checkQueries,
  emptyResult,
  type Metric,
  type SearchResult,
  type VectorIndex,
} from './types.js';
import { exactSearchRows, fromMatches, ownBuffer } from './usearch-results.js';

export interface FlatOptions {
  /** Threads for search (0: all cores). */
  threads?: number;
  factory?: string;
  /** false: search with usearch's exact search instead of irserve's kernel (default true). */
  kernel?: boolean;
}

/**
 * Exact search over all vectors. On first search the vectors move into a shared WebAssembly
 * memory, where a SIMD kernel (simd/) searches them in place on several threads; the scores of
 * the `k` winners are then recomputed from the stored vectors, so they carry no float32
 * rounding. Indexes beyond what a wasm32 memory addresses (4 GiB) use usearch's exact search.
 */
export class FlatIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  /** `count` rows of `#stride` floats (the first `dim` of each are the vector). */
  #vectors: Float32Array;
  #stride: number;
  readonly #threads: number;
  /** The kernel once the vectors are shared; null when they cannot be (usearch then). */
  #kernel: ParallelDots | null | undefined;
  #squaredNorms: Float32Array | undefined;

  constructor(vectors: Float32Array, dim: number, metric: Metric, options: FlatOptions = {}) {
    if (vectors.length % dim !== 0) {
      throw new RangeError(`${vectors.length} floats are not a whole number of ${dim}-vectors`);
    }
    this.#vectors = vectors;
    this.#stride = dim;
    this.dim = dim;
    this.metric = metric;
    this.count = vectors.length / dim;
    this.factory = options.factory ?? 'Flat';
    this.#threads = options.threads ?? 0;
    // usearch reads a typed array from the start of its buffer (see ownBuffer): copied once.
    if (options.kernel === false) {
      this.#kernel = null;
      this.#vectors = ownBuffer(vectors);
    }
  }

  /** The stored vectors, `count * dim` floats (a copy once rows are padded in shared memory). */
  get vectors(): Float32Array {
    if (this.#stride === this.dim) return this.#vectors.subarray(0, this.count * this.dim);
    const out = new Float32Array(this.count * this.dim);
    for (let i = 0; i < this.count; i++) out.set(this.vector(i), i * this.dim);
    return out;
  }

  search(queries: Float32Array, k: number): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    if (n === 0 || this.count === 0) return emptyResult(n, k);
    const kernel = this.#sharedKernel();
    const result = kernel
      ? kernel.search(queries, k, this.metric === 'l2' ? this.#norms() : undefined)
      : this.#usearch(queries, n, k);
    this.#rescore(queries, result, k);
    return result;
  }

  #usearch(queries: Float32Array, n: number, k: number): SearchResult {
    const kk = Math.min(k, this.count);
    const { dim, metric } = this;
    const matches = exactSearchRows(this.#vectors, queries, dim, kk, metric, this.#threads);
    return fromMatches(matches, n, k, kk, () => 0);
  }

  /**
   * The kernel, made on first search: the vectors move into shared memory once (the original
   * array is released), so helper threads read them in place.
   */
  #sharedKernel(): ParallelDots | null {
    if (this.#kernel !== undefined) return this.#kernel;
    const threads = this.#threads > 0 ? this.#threads : availableParallelism();
    const layout = shareVectors(this.#vectors, this.dim, threads);
    if (!layout) {
      this.#vectors = ownBuffer(this.#vectors);
      return (this.#kernel = null);
    }
    this.#vectors = sharedView(layout);
    this.#stride = layout.stride;
    return (this.#kernel = new ParallelDots(layout, threads));
  }

  /** |v|² of every vector, for l2 ranking in the kernel (shared: helper threads read it). */
  #norms(): Float32Array {
    if (this.#squaredNorms) return this.#squaredNorms;
    const norms = new Float32Array(new SharedArrayBuffer(this.count * 4));
    const stride = this.#stride;
    for (let i = 0; i < this.count; i++) {
      norms[i] = dot(this.#vectors, i * stride, this.#vectors, i * stride, this.dim);
    }
    return (this.#squaredNorms = norms);
  }

  #rescore(queries: Float32Array, { labels, scores }: SearchResult, k: number): void {
    const { dim, metric } = this;
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      if (label < 0) continue;
      const q = Math.floor(i / k);
      scores[i] = similarity(metric, queries, q * dim, this.#vectors, label * this.#stride, dim);
    }
  }

  /** Stops the helper threads of parallel searches, if any were started. */
  close(): void {
    this.#kernel?.close();
  }

  vector(position: number): Float32Array {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0..${this.count - 1}`);
    }
    const at = position * this.#stride;
    return this.#vectors.subarray(at, at + this.dim);
  }
}
