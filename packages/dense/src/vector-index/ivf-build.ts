import { IvfIndex, type IvfData } from './ivf.js';
import { assign, kmeans } from './kmeans.js';
import { encodePq, trainPq, type ProductQuantizer } from './pq.js';
import { gatherRows, samplePositions, seededRandom } from './random.js';
import type { FactorySpec } from './factory.js';
import type { Metric } from './types.js';
import type { TrainOptions } from './train-options.js';

/** faiss's cap on k-means training points per centroid (it subsamples above it, too). */
const MAX_POINTS_PER_CENTROID = 256;
/** Vectors assigned and encoded per step, so progress moves and peak memory stays bounded. */
const ADD_CHUNK = 16_384;

/** Trains the coarse quantizer (and PQ) on a seeded sample, then adds every vector. */
export function buildIvf(
  spec: Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions,
): IvfIndex {
  if (options.trained)
    return new IvfIndex(
      addAll(vectors, dim, metric, options.trained.centroids, spec, options.trained.pq, options),
    );
  const { seed = 1234, threads = 0, kmeansIterations = 25 } = options;
  const sample = trainingSample(spec, vectors, dim, options);
  const wanted = sample.length / dim;
  const total = kmeansIterations * (spec.kind === 'ivf-pq' ? 1 + spec.pqM : 1);
  const centroids = kmeans(sample, dim, spec.nlist, {
    iterations: kmeansIterations,
    seed,
    metric,
    threads,
    onIteration: (done) => options.progress?.('train', done, total),
  });
  let pq: ProductQuantizer | undefined;
  if (spec.kind === 'ivf-pq') {
    const pqSample = sample.subarray(0, Math.min(wanted, PQ_MAX_TRAIN) * dim);
    pq = trainPq(residuals(pqSample, centroids, dim, metric, threads), dim, spec.pqM, {
      seed: seed + 1,
      iterations: kmeansIterations,
      threads,
      onSubspace: (j) => options.progress?.('train', kmeansIterations * (1 + j), total),
    });
  }
  return new IvfIndex(addAll(vectors, dim, metric, centroids, spec, pq, options));
}

/** faiss's PQ trains on at most 256 points per code centroid: 65536. */
export const PQ_MAX_TRAIN = 65_536;

/**
 * The seeded sample that trains the coarse quantizer: `samplingRate` of the vectors, at most
 * 256 per centroid (as faiss).
 */
export function trainingSample(
  spec: Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>,
  vectors: Float32Array,
  dim: number,
  options: TrainOptions,
): Float32Array {
  const n = vectors.length / dim;
  const wanted = Math.min(
    Math.round(n * (options.samplingRate ?? 1)),
    spec.nlist * MAX_POINTS_PER_CENTROID,
  );
  if (wanted < spec.nlist) {
    throw new Error(
      `${spec.factory} needs at least ${spec.nlist} training vectors; the sample has ${wanted} ` +
        `of ${n} (raise --sampling_rate or lower nlist)`,
    );
  }
  return gatherRows(vectors, dim, samplePositions(n, wanted, seededRandom(options.seed ?? 1234)));
}

/** Each row minus its nearest centroid (faiss's IVFPQ encodes residuals). */
export function residuals(
  data: Float32Array,
  centroids: Float32Array,
  dim: number,
  metric: Metric,
  threads: number,
  labels = assign(centroids, data, dim, metric, threads),
): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < labels.length; i++) {
    const c = labels[i]! * dim;
    for (let j = 0; j < dim; j++) out[i * dim + j] = data[i * dim + j]! - centroids[c + j]!;
  }
  return out;
}

function addAll(
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  centroids: Float32Array,
  spec: Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>,
  pq: ProductQuantizer | undefined,
  options: TrainOptions,
): IvfData {
  const n = vectors.length / dim;
  const { threads = 0 } = options;
  const labels = new Int32Array(n);
  const m = pq?.m ?? 0;
  const allCodes = pq ? new Uint8Array(n * m) : undefined;
  for (let start = 0; start < n; start += ADD_CHUNK) {
    const chunk = vectors.subarray(start * dim, Math.min(n, start + ADD_CHUNK) * dim);
    const chunkLabels = assign(centroids, chunk, dim, metric, threads);
    labels.set(chunkLabels, start);
    if (pq && allCodes) {
      const res = residuals(chunk, centroids, dim, metric, threads, chunkLabels);
      allCodes.set(encodePq(pq, res, threads), start * m);
    }
    options.progress?.('add', Math.min(n, start + ADD_CHUNK), n);
  }
  const offsets = new Int32Array(spec.nlist + 1);
  for (let i = 0; i < n; i++) offsets[labels[i]! + 1]!++;
  for (let l = 0; l < spec.nlist; l++) offsets[l + 1]! += offsets[l]!;
  const fill = offsets.slice(0, spec.nlist);
  const ids = new Int32Array(n);
  const flat = pq ? undefined : new Float32Array(n * dim);
  const codes = allCodes ? new Uint8Array(n * m) : undefined;
  for (let i = 0; i < n; i++) {
    const slot = fill[labels[i]!]!++;
    ids[slot] = i;
    flat?.set(vectors.subarray(i * dim, (i + 1) * dim), slot * dim);
    codes?.set(allCodes!.subarray(i * m, (i + 1) * m), slot * m);
  }
  const base = { dim, metric, nlist: spec.nlist, centroids, offsets, ids, factory: spec.factory };
  return { ...base, nprobe: options.nprobe ?? 1, ...(pq ? { pq, codes } : { vectors: flat }) };
}
