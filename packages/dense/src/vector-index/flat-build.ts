/**
 * Building exhaustive indexes over quantized rows (`SQfp16`, `SQ8`): SQ8 trains its ranges on
 * a seeded sample, then every vector is encoded in order.
 */
import type { FactorySpec } from './factory.js';
import { gatherRows, samplePositions, seededRandom } from './random.js';
import { rowCodec, type RowCodec } from './row-codec.js';
import { trainSq8Ranges } from './scalar-quantizer.js';
import { ScanFlatIndex } from './scan-flat.js';
import { allocateRows } from './simd/shared-rows.js';
import type { TrainOptions } from './train-options.js';
import type { Metric } from './types.js';

type FlatSpec = Extract<FactorySpec, { kind: 'flat' }>;

/** Vectors that train SQ8's ranges at most (as many as PQ trains on). */
export const SQ_MAX_TRAIN = 65_536;
/** Vectors encoded per step, so progress moves during long adds. */
const ENCODE_CHUNK = 65_536;

/** The sample positions SQ8's ranges train on (none for other storage). */
export function flatTrainingPositions(spec: FlatSpec, n: number, options: TrainOptions) {
  if (spec.storage !== 'sq8') return new Int32Array(0);
  const wanted = Math.min(Math.round(n * (options.samplingRate ?? 1)), SQ_MAX_TRAIN);
  if (wanted < 1 && n > 0)
    throw new Error(`${spec.factory} needs at least one training vector (raise --sampling_rate)`);
  return samplePositions(n, wanted, seededRandom(options.seed ?? 1234));
}

/** The codec of a flat spec, SQ8 ranges trained on `sample`. */
export function flatCodec(spec: FlatSpec, sample: Float32Array, dim: number): RowCodec {
  const ranges = spec.storage === 'sq8' ? trainSq8Ranges(sample, dim) : undefined;
  return rowCodec(spec.storage, dim, ranges);
}

/**
 * Encodes `vectors` into a {@link ScanFlatIndex} in memory.
 *
 * @example buildScanFlat(parseFactory('SQ8'), vectors, 768, 'ip', {}).search(q, 10)
 */
export function buildScanFlat(
  spec: FlatSpec,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions,
): ScanFlatIndex {
  const n = vectors.length / dim;
  const sample = gatherRows(vectors, dim, flatTrainingPositions(spec, n, options));
  const codec = flatCodec(spec, sample, dim);
  const rows = allocateRows(n, codec.rowBytes);
  for (let start = 0; start < n; start += ENCODE_CHUNK) {
    const end = Math.min(n, start + ENCODE_CHUNK);
    // The store hands out each segment's part of the range (a chunk may straddle two).
    rows.scan(start, end - start, (bytes, at, row, count) =>
      codec.encode(vectors.subarray(row * dim, (row + count) * dim), bytes, at),
    );
    options.progress?.('add', end, n);
  }
  return new ScanFlatIndex(codec, rows, metric, spec.factory, { threads: options.threads });
}
