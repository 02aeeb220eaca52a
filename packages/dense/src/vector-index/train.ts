import type { Index } from 'usearch';
import { parseFactory, type FactorySpec } from './factory.js';
import { FlatIndex } from './flat.js';
import { buildScanFlat } from './flat-build.js';
import { createUsearchIndex, HNSW_DEFAULTS, HnswIndex, type HnswParams } from './hnsw.js';
import { buildIvf } from './ivf-build.js';
import { maxSquaredNorm, sq8MapVectors, sq8NormOf } from './sq8.js';
import type { Metric, VectorIndex } from './types.js';
import type { TrainOptions } from './train-options.js';

/** Vectors added to an HNSW graph per call, so progress moves during long adds. */
export const HNSW_CHUNK = 10_000;

/**
 * Trains (where the type needs it) and fills an index from `n * dim` vectors in memory; the
 * position of a vector in `vectors` is its label in search results.
 *
 * @example const index = trainAndAdd('HNSW32', vectors, 768, 'ip');
 *          const { labels, scores } = index.search(queries, 10);
 */
export function trainAndAdd(
  spec: FactorySpec | string,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions = {},
): VectorIndex {
  const parsed = typeof spec === 'string' ? parseFactory(spec) : spec;
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be a positive integer`);
  if (vectors.length % dim !== 0) {
    throw new RangeError(`${vectors.length} floats are not a whole number of ${dim}-vectors`);
  }
  switch (parsed.kind) {
    case 'flat': {
      if (parsed.storage !== 'f32') return buildScanFlat(parsed, vectors, dim, metric, options);
      const index = new FlatIndex(vectors, dim, metric, { ...options, factory: parsed.factory });
      options.progress?.('add', index.count, index.count);
      return index;
    }
    case 'hnsw':
      return buildHnsw(parsed, vectors, dim, metric, options);
    case 'ivf-flat':
    case 'ivf-pq':
      return buildIvf(parsed, vectors, dim, metric, options);
  }
}

function buildHnsw(
  spec: Extract<FactorySpec, { kind: 'hnsw' }>,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions,
): HnswIndex {
  const n = vectors.length / dim;
  const maxSquared = spec.quantization === 'i8' ? maxSquaredNorm(vectors, dim) : 0;
  const params = hnswParams(spec, dim, metric, options, maxSquared);
  const index: Index = createUsearchIndex(params);
  const threads = options.threads ?? 0;
  for (let start = 0; start < n; start += HNSW_CHUNK) {
    const end = Math.min(n, start + HNSW_CHUNK);
    addHnswChunk(index, params, vectors.subarray(start * dim, end * dim), start, threads);
    options.progress?.('add', end, n);
  }
  return new HnswIndex(index, params, { threads });
}

/** The graph's parameters; `maxSquaredNorm` (the largest |x|²) sets SQ8's mapping. */
export function hnswParams(
  spec: Extract<FactorySpec, { kind: 'hnsw' }>,
  dim: number,
  metric: Metric,
  options: TrainOptions,
  maxSquared: number,
): HnswParams {
  return {
    dim,
    metric,
    m: spec.m,
    quantization: spec.quantization,
    efConstruction: options.efConstruction ?? HNSW_DEFAULTS.efConstruction,
    efSearch: options.efSearch ?? HNSW_DEFAULTS.efSearch,
    sq8Norm: spec.quantization === 'i8' ? sq8NormOf(maxSquared, metric) : 0,
    factory: spec.factory,
  };
}

/** Adds `chunk` (vectors from position `first`) to the graph, keyed by position. */
export function addHnswChunk(
  index: Index,
  params: HnswParams,
  chunk: Float32Array,
  first: number,
  threads: number,
): void {
  const { dim, metric } = params;
  const keys = new BigUint64Array(chunk.length / dim);
  for (let i = 0; i < keys.length; i++) keys[i] = BigInt(first + i);
  const input =
    params.quantization === 'i8' ? sq8MapVectors(chunk, dim, metric, params.sq8Norm) : chunk;
  index.add(keys, input, threads);
}
