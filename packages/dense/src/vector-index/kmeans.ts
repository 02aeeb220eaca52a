import { CentroidAssigner, type NearestCentroid } from './centroid-assigner.js';
import { gatherRows, samplePositions, seededRandom } from './random.js';
import type { Metric } from './types.js';

export interface KmeansOptions {
  /** Lloyd iterations; faiss's default is 25. */
  iterations?: number;
  seed?: number;
  /** Assignment metric: faiss trains an inner-product IVF with an inner-product quantizer. */
  metric?: Metric;
  threads?: number;
  /**
   * Makes the assigner of the iterations from the initial centroids (it is given each
   * iteration's centroids with `setCentroids`); default the exact one over `threads`.
   */
  assigner?: (centroids: Float32Array) => NearestCentroid;
  /** Called after each iteration. */
  onIteration?: (done: number, total: number) => void;
}

/** faiss's relative perturbation when an empty cluster takes half of a large one. */
const SPLIT_EPS = 1 / 1024;

/**
 * The nearest of `k` centroids for each of the `n` rows of `data`, by an exact Flat search
 * over the centroids with the rows as one batch of queries (the batched SIMD kernel);
 * assignment is all the cost of k-means and of IVF adds.
 */
export function assign(
  centroids: Float32Array,
  data: Float32Array,
  dim: number,
  metric: Metric,
  threads = 0,
): Int32Array {
  if (data.length === 0) return new Int32Array(0);
  const assigner = new CentroidAssigner(centroids, dim, metric, threads);
  try {
    return assigner.assign(data);
  } finally {
    assigner.close();
  }
}

/**
 * Lloyd's k-means with faiss's choices: random distinct initial centroids (seeded), a fixed
 * number of iterations, empty clusters re-seeded by splitting the largest one.
 *
 * @example const centroids = kmeans(data, 768, 1024, { seed: 1 }); // 1024 * 768 floats
 */
export function kmeans(data: Float32Array, dim: number, k: number, options: KmeansOptions = {}) {
  const n = data.length / dim;
  if (n < k) {
    throw new Error(`k-means needs at least ${k} training vectors for ${k} clusters, got ${n}`);
  }
  const { iterations = 25, seed = 1234, metric = 'l2', threads = 0 } = options;
  const centroids = gatherRows(data, dim, samplePositions(n, k, seededRandom(seed)));
  const sums = new Float64Array(k * dim);
  const counts = new Int32Array(k);
  const assigner =
    options.assigner?.(centroids) ?? new CentroidAssigner(centroids, dim, metric, threads);
  try {
    for (let it = 0; it < iterations; it++) {
      if (it > 0) assigner.setCentroids(centroids);
      update(data, dim, assigner.assign(data), centroids, sums, counts);
      options.onIteration?.(it + 1, iterations);
    }
  } finally {
    assigner.close();
  }
  return centroids;
}

/** Nearest-centroid assignment done elsewhere (a GPU), asynchronously. */
export type AsyncAssign = (
  centroids: Float32Array,
  data: Float32Array,
  dim: number,
  metric: Metric,
) => Promise<Int32Array>;

/**
 * `kmeans` with the assignment step handed to `assignAsync` (the gpu extra's ONNX Runtime
 * assigner for `--use_gpu`); same initialisation, update and empty-cluster split, so the same
 * seed gives the same result up to the assigner's floating-point ties.
 *
 * @example const centroids = await kmeansWith(gpuAssign, data, 768, 4096, { seed: 1 });
 */
export async function kmeansWith(
  assignAsync: AsyncAssign,
  data: Float32Array,
  dim: number,
  k: number,
  options: KmeansOptions = {},
): Promise<Float32Array> {
  const n = data.length / dim;
  if (n < k) {
    throw new Error(`k-means needs at least ${k} training vectors for ${k} clusters, got ${n}`);
  }
  const { iterations = 25, seed = 1234, metric = 'l2' } = options;
  const centroids = gatherRows(data, dim, samplePositions(n, k, seededRandom(seed)));
  const sums = new Float64Array(k * dim);
  const counts = new Int32Array(k);
  for (let it = 0; it < iterations; it++) {
    update(data, dim, await assignAsync(centroids, data, dim, metric), centroids, sums, counts);
    options.onIteration?.(it + 1, iterations);
  }
  return centroids;
}

/** One Lloyd update: each centroid becomes the mean of its rows; empty ones are split off. */
function update(
  data: Float32Array,
  dim: number,
  labels: Int32Array,
  centroids: Float32Array,
  sums: Float64Array,
  counts: Int32Array,
): void {
  const n = labels.length;
  const k = counts.length;
  sums.fill(0);
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const c = labels[i]!;
    counts[c]!++;
    const so = c * dim;
    const o = i * dim;
    for (let j = 0; j < dim; j++) sums[so + j]! += data[o + j]!;
  }
  for (let c = 0; c < k; c++) {
    const count = counts[c]!;
    if (count === 0) continue;
    for (let j = 0; j < dim; j++) centroids[c * dim + j] = sums[c * dim + j]! / count;
  }
  splitEmpty(centroids, counts, dim);
}

/** Gives each empty cluster a perturbed copy of the currently largest one (as faiss does). */
function splitEmpty(centroids: Float32Array, counts: Int32Array, dim: number): void {
  for (let c = 0; c < counts.length; c++) {
    if (counts[c] !== 0) continue;
    let largest = 0;
    for (let j = 1; j < counts.length; j++) if (counts[j]! > counts[largest]!) largest = j;
    for (let j = 0; j < dim; j++) {
      const v = centroids[largest * dim + j]!;
      const sign = j % 2 === 0 ? 1 : -1;
      centroids[c * dim + j] = v * (1 + sign * SPLIT_EPS);
      centroids[largest * dim + j] = v * (1 - sign * SPLIT_EPS);
    }
    const half = counts[largest]! >> 1;
    counts[c] = half;
    counts[largest] = counts[largest]! - half;
  }
}
