import { availableParallelism } from 'node:os';
import { dot, similarity } from './kernels.js';
import { ParallelDots } from './simd/parallel-dots.js';
import { copyRows, shareVectors, sharedView, type SharedLayout } from './simd/shared-vectors.js';
import type { Metric } from './types.js';

/**
 * What assigns vectors to their nearest centroid: exactly (`CentroidAssigner`, below) or by a
 * graph over the centroids (`CentroidGraph`, for `IVF<n>_HNSW<M>`).
 */
export interface NearestCentroid {
  /** Replaces the centroids (same count). */
  setCentroids(centroids: Float32Array): void;
  /** The nearest centroid of each row of `data` (`n * dim` floats). */
  assign(data: Float32Array): Int32Array;
  close(): void;
}

/**
 * Nearest-centroid assignment with the centroids kept in the SIMD kernel's shared memory and its
 * helper threads kept alive between calls: k-means updates the centroids in place every
 * iteration and IVF adds assign chunk after chunk, without copying the centroids or starting
 * threads again each time. A large batch is split over the threads by rows of `data`.
 */
export class CentroidAssigner implements NearestCentroid {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly #layout: SharedLayout | undefined;
  readonly #dots: ParallelDots | undefined;
  #norms: Float32Array | undefined;
  #fallback: Float32Array | undefined;

  /** `threads` 0: all cores. */
  constructor(centroids: Float32Array, dim: number, metric: Metric, threads = 0) {
    this.dim = dim;
    this.metric = metric;
    this.count = centroids.length / dim;
    const workers = threads > 0 ? threads : availableParallelism();
    this.#layout = shareVectors(centroids, dim, workers);
    this.#dots = this.#layout && new ParallelDots(this.#layout, workers);
    if (this.#layout) this.#updateNorms();
    else this.#fallback = centroids.slice();
  }

  /** Replaces the centroids (same count). */
  setCentroids(centroids: Float32Array): void {
    if (centroids.length !== this.count * this.dim)
      throw new RangeError(`${centroids.length} floats for ${this.count} centroids of ${this.dim}`);
    if (!this.#layout) {
      this.#fallback = centroids.slice();
      return;
    }
    copyRows(centroids, this.dim, sharedView(this.#layout), this.#layout.stride);
    this.#updateNorms();
  }

  /** The nearest centroid of each row of `data` (`n * dim` floats). */
  assign(data: Float32Array): Int32Array {
    if (data.length === 0) return new Int32Array(0);
    if (!this.#dots) return this.#nearest(data, this.#fallback!);
    return this.#dots.search(data, 1, this.#norms).labels;
  }

  /** Plain JavaScript, for when no shared memory could be had. */
  #nearest(data: Float32Array, centroids: Float32Array): Int32Array {
    const { dim, count, metric } = this;
    const labels = new Int32Array(data.length / dim);
    for (let i = 0; i < labels.length; i++) {
      let best = -Infinity;
      for (let c = 0; c < count; c++) {
        const s = similarity(metric, data, i * dim, centroids, c * dim, dim);
        if (s > best) [best, labels[i]] = [s, c];
      }
    }
    return labels;
  }

  /** Stops the helper threads. */
  close(): void {
    this.#dots?.close();
  }

  /** |c|² of every centroid, for l2 ranking (shared: helper threads read it). */
  #updateNorms(): void {
    if (this.metric !== 'l2') return;
    const layout = this.#layout!;
    const vectors = sharedView(layout);
    this.#norms ??= new Float32Array(new SharedArrayBuffer(this.count * 4));
    for (let i = 0; i < this.count; i++)
      this.#norms[i] = dot(vectors, i * layout.stride, vectors, i * layout.stride, this.dim);
  }
}
