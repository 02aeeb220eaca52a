/**
 * Training a PLAID codec as ColBERT's `CollectionIndexer` does: k-means centroids over a
 * sample of token embeddings (L2-normalised afterwards), then bucket cutoffs and weights
 * from the quantiles of held-out residuals, and the mean absolute residual per dimension.
 */
import { kmeans } from '@irserve/dense';
import { assignTokens, tokenAssigner, type CentroidGraphSettings } from './centroid-assignment.js';

export interface TrainedCodec {
  centroids: Float32Array;
  cutoffs: Float32Array;
  weights: Float32Array;
  avgResidual: Float32Array;
}

export interface TrainOptions {
  dim: number;
  partitions: number;
  nbits: number;
  iterations: number;
  seed: number;
  /** Threads for the centroid assignments (0 or absent: every core). */
  threads?: number;
  /** Assign through an HNSW graph over the centroids instead of exactly. */
  centroidGraph?: CentroidGraphSettings;
  onIteration?: (done: number, total: number) => void;
}

/** torch.quantile's linear interpolation over sorted values. */
export function quantile(sorted: Float32Array, q: number): number {
  const position = q * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/** Scales each row to unit length (zero rows stay zero). */
export function normalizeRows(data: Float32Array, dim: number): Float32Array {
  for (let o = 0; o < data.length; o += dim) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += data[o + j]! * data[o + j]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dim; j++) data[o + j]! *= scale;
  }
  return data;
}

/**
 * Trains centroids on `sample` and the residual buckets on `heldout` (both row-major).
 *
 * @example trainCodec(sample, heldout, { dim: 128, partitions: 4096, nbits: 2, iterations: 4, seed: 123 })
 */
export function trainCodec(
  sample: Float32Array,
  heldout: Float32Array,
  options: TrainOptions,
): TrainedCodec {
  const { dim, partitions, nbits, centroidGraph } = options;
  const threads = options.threads ?? 0;
  const centroids = normalizeRows(
    kmeans(sample, dim, partitions, {
      iterations: options.iterations,
      seed: options.seed,
      metric: 'l2',
      threads,
      assigner: (initial) => tokenAssigner(initial, dim, 'l2', threads, centroidGraph),
      ...(options.onIteration ? { onIteration: options.onIteration } : {}),
    }),
    dim,
  );
  const codes = assignTokens(centroids, heldout, dim, threads, centroidGraph);
  const residuals = new Float32Array(heldout.length);
  const avgResidual = new Float32Array(dim);
  for (let i = 0; i < codes.length; i++) {
    for (let j = 0; j < dim; j++) {
      const r = heldout[i * dim + j]! - centroids[codes[i]! * dim + j]!;
      residuals[i * dim + j] = r;
      avgResidual[j]! += Math.abs(r);
    }
  }
  for (let j = 0; j < dim; j++) avgResidual[j]! /= Math.max(1, codes.length);
  const sorted = residuals.sort();
  const options2 = 2 ** nbits;
  const cutoffs = new Float32Array(options2 - 1);
  const weights = new Float32Array(options2);
  for (let i = 1; i < options2; i++) cutoffs[i - 1] = quantile(sorted, i / options2);
  for (let i = 0; i < options2; i++) weights[i] = quantile(sorted, i / options2 + 0.5 / options2);
  return { centroids, cutoffs, weights, avgResidual };
}
