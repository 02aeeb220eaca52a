import { assignWith, centroidAssigner } from './centroid-graph.js';
import { IvfIndex, type IvfData } from './ivf.js';
import { encodeEntries, entryBytes, residuals, type IvfEncoding } from './ivf-encode.js';
import { kmeans } from './kmeans.js';
import { trainPq } from './pq.js';
import { gatherRows, samplePositions, seededRandom } from './random.js';
import { rowCodec } from './row-codec.js';
import { MemoryRows } from './row-store.js';
import { trainSq8Ranges } from './scalar-quantizer.js';
import type { FactorySpec } from './factory.js';
import type { Metric } from './types.js';
import type { PretrainedIvf, TrainOptions } from './train-options.js';

type IvfSpec = Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>;

/** faiss's cap on k-means training points per centroid (it subsamples above it, too). */
const MAX_POINTS_PER_CENTROID = 256;
/** Vectors assigned and encoded per step, so progress moves and peak memory stays bounded. */
export const ADD_CHUNK = 16_384;

/** Trains the coarse quantizer (and PQ or SQ8) on a seeded sample, then adds every vector. */
export function buildIvf(
  spec: IvfSpec,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions,
): IvfIndex {
  const n = vectors.length / dim;
  const needsSample = !options.trained || (spec.kind === 'ivf-flat' && spec.storage === 'sq8');
  const sample = needsSample
    ? gatherRows(vectors, dim, trainingPositions(spec, n, options))
    : new Float32Array(0);
  const trained = options.trained ?? trainIvf(spec, sample, dim, metric, options);
  const encoding = ivfEncoding(spec, trained, sample, dim, metric, options.threads ?? 0);
  return new IvfIndex(addAll(vectors, dim, metric, trained.centroids, spec, encoding, options));
}

/** faiss's PQ trains on at most 256 points per code centroid: 65536. */
export const PQ_MAX_TRAIN = 65_536;

/**
 * The positions of the seeded sample that trains the coarse quantizer (and PQ or SQ8):
 * `samplingRate` of the `n` vectors, at most 256 per centroid (as faiss).
 */
export function trainingPositions(spec: IvfSpec, n: number, options: TrainOptions): Int32Array {
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
  return samplePositions(n, wanted, seededRandom(options.seed ?? 1234));
}

/** The seeded training sample of `vectors` (see {@link trainingPositions}). */
export function trainingSample(
  spec: IvfSpec,
  vectors: Float32Array,
  dim: number,
  options: TrainOptions,
): Float32Array {
  return gatherRows(vectors, dim, trainingPositions(spec, vectors.length / dim, options));
}

/** k-means centroids on `sample`, then the PQ codebooks on the residuals of its first 65,536. */
export function trainIvf(
  spec: IvfSpec,
  sample: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions,
): PretrainedIvf {
  const { seed = 1234, threads = 0, kmeansIterations = 25 } = options;
  const total = kmeansIterations * (spec.kind === 'ivf-pq' ? 1 + spec.pqM : 1);
  const centroids = kmeans(sample, dim, spec.nlist, {
    iterations: kmeansIterations,
    seed,
    metric,
    threads,
    assigner: (initial) => centroidAssigner(spec, initial, dim, metric, threads),
    onIteration: (done) => options.progress?.('train', done, total),
  });
  if (spec.kind !== 'ivf-pq') return { centroids };
  const pqSample = sample.subarray(0, Math.min(sample.length / dim, PQ_MAX_TRAIN) * dim);
  const pq = trainPq(residualsFor(spec, centroids, pqSample, dim, metric, threads), dim, spec.pqM, {
    seed: seed + 1,
    iterations: kmeansIterations,
    threads,
    onSubspace: (j) => options.progress?.('train', kmeansIterations * (1 + j), total),
  });
  return { centroids, pq };
}

/** The entries' encoding: PQ as trained, or a row codec (SQ8 ranges from the sample's residuals). */
export function ivfEncoding(
  spec: IvfSpec,
  trained: PretrainedIvf,
  sample: Float32Array,
  dim: number,
  metric: Metric,
  threads: number,
): IvfEncoding {
  if (spec.kind === 'ivf-pq') {
    if (!trained.pq) throw new Error(`${spec.factory}: the trained quantizer has no PQ codebooks`);
    return { pq: trained.pq };
  }
  const { centroids } = trained;
  const ranges =
    spec.storage === 'sq8'
      ? trainSq8Ranges(residualsFor(spec, centroids, sample, dim, metric, threads), dim)
      : undefined;
  return { codec: rowCodec(spec.storage, dim, ranges) };
}

/** Each row of `data` minus its centroid, assigned as the spec's adds assign. */
function residualsFor(
  spec: IvfSpec,
  centroids: Float32Array,
  data: Float32Array,
  dim: number,
  metric: Metric,
  threads: number,
): Float32Array {
  const labels = assignWith(spec, centroids, data, dim, metric, threads);
  return residuals(data, centroids, dim, metric, threads, labels);
}

/** List offsets from each entry's list (a counting sort's prefix sums). */
export function listOffsets(labels: Int32Array, nlist: number): Int32Array {
  const offsets = new Int32Array(nlist + 1);
  for (let i = 0; i < labels.length; i++) offsets[labels[i]! + 1]!++;
  for (let l = 0; l < nlist; l++) offsets[l + 1]! += offsets[l]!;
  return offsets;
}

function addAll(
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  centroids: Float32Array,
  spec: IvfSpec,
  encoding: IvfEncoding,
  options: TrainOptions,
): IvfData {
  const n = vectors.length / dim;
  const { threads = 0 } = options;
  // Assigning is half the work, encoding the other half: progress counts both.
  const labels = new Int32Array(n);
  const assigner = centroidAssigner(spec, centroids, dim, metric, threads);
  try {
    for (let start = 0; start < n; start += ADD_CHUNK) {
      const chunk = vectors.subarray(start * dim, Math.min(n, start + ADD_CHUNK) * dim);
      labels.set(assigner.assign(chunk), start);
      options.progress?.('add', Math.min(n, start + ADD_CHUNK), 2 * n);
    }
  } finally {
    assigner.close();
  }
  const offsets = listOffsets(labels, spec.nlist);
  const fill = offsets.slice(0, spec.nlist);
  const ids = new Int32Array(n);
  const bytes = entryBytes(encoding);
  const rows = MemoryRows.allocate(n, bytes);
  for (let start = 0; start < n; start += ADD_CHUNK) {
    const end = Math.min(n, start + ADD_CHUNK);
    const chunk = vectors.subarray(start * dim, end * dim);
    const chunkLabels = labels.subarray(start, end);
    const encoded = encodeEntries(chunk, chunkLabels, centroids, dim, metric, encoding);
    for (let i = 0; i < end - start; i++) {
      const slot = fill[chunkLabels[i]!]!++;
      ids[slot] = start + i;
      const { segment, byteOffset } = rows.locate(slot);
      segment.set(encoded.subarray(i * bytes, (i + 1) * bytes), byteOffset);
    }
    options.progress?.('add', n + end, 2 * n);
  }
  const base = { dim, metric, nlist: spec.nlist, centroids, offsets, ids, factory: spec.factory };
  return { ...base, nprobe: options.nprobe ?? 1, rows, ...encoding };
}
