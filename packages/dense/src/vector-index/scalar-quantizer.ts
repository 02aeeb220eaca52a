/**
 * faiss's 8-bit scalar quantizer (`SQ8`, `QT_8bit`): each dimension has its own range, the
 * minimum and maximum of a training sample; a value becomes `floor(255 * (x - min) / width)`
 * (clamped to the range) and decodes to `min + (code + 0.5) * width / 255`. A quarter of
 * float32's bytes, and unlike usearch's int8 storage it keeps vector lengths, so inner
 * products and distances stay what they are.
 */
import type { Metric, RowScorer } from './types.js';

/**
 * The per-dimension ranges of `sample` (`n * dim` floats): `dim` minimums, then `dim` widths.
 *
 * @example trainSq8Ranges(sample, 768) // Float32Array(1536)
 */
export function trainSq8Ranges(sample: Float32Array, dim: number): Float32Array {
  const ranges = new Float32Array(2 * dim);
  if (sample.length === 0) return ranges;
  const min = ranges.subarray(0, dim);
  const max = new Float32Array(dim);
  min.set(sample.subarray(0, dim));
  max.set(sample.subarray(0, dim));
  for (let o = dim; o < sample.length; o += dim) {
    for (let j = 0; j < dim; j++) {
      const x = sample[o + j]!;
      if (x < min[j]!) min[j] = x;
      if (x > max[j]!) max[j] = x;
    }
  }
  for (let j = 0; j < dim; j++) ranges[dim + j] = max[j]! - min[j]!;
  return ranges;
}

/** Encodes whole rows of `vectors` to one byte per dimension, into `out` from byte `at`. */
export function sq8Encode(
  ranges: Float32Array,
  dim: number,
  vectors: Float32Array,
  out: Uint8Array,
  at: number,
): void {
  for (let i = 0; i < vectors.length; i++) {
    const j = i % dim;
    const width = ranges[dim + j]!;
    let x = width === 0 ? 0 : (vectors[i]! - ranges[j]!) / width;
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    out[at + i] = Math.floor(255 * x);
  }
}

/** Decodes the row at `byteOffset` of `bytes` into `out` from `outOffset`. */
export function sq8Decode(
  ranges: Float32Array,
  dim: number,
  bytes: Uint8Array,
  byteOffset: number,
  out: Float32Array,
  outOffset: number,
): void {
  for (let j = 0; j < dim; j++)
    out[outOffset + j] = ranges[j]! + ((bytes[byteOffset + j]! + 0.5) * ranges[dim + j]!) / 255;
}

/**
 * A scorer for one query. With `step_j = width_j / 255`:
 * - ip: q · x̂ = Σ q_j (min_j + step_j / 2) + Σ (q_j step_j) code_j, a constant plus one
 *   multiply-add per byte;
 * - l2: |q - x̂|² = Σ (a_j - step_j code_j)² with a_j = q_j - min_j - step_j / 2.
 */
export function sq8Scorer(
  ranges: Float32Array,
  dim: number,
  queries: Float32Array,
  qo: number,
  metric: Metric,
): RowScorer {
  const weights = new Float32Array(dim);
  const shifted = new Float32Array(dim);
  let base = 0;
  for (let j = 0; j < dim; j++) {
    const q = queries[qo + j]!;
    const step = ranges[dim + j]! / 255;
    weights[j] = metric === 'ip' ? q * step : step;
    shifted[j] = q - ranges[j]! - step / 2;
    base += q * (ranges[j]! + step / 2);
  }
  if (metric === 'ip')
    return (bytes, byteOffset, count, out) => {
      for (let i = 0, o = byteOffset; i < count; i++, o += dim)
        out[i] = base + byteDot(weights, bytes, o, dim);
    };
  return (bytes, byteOffset, count, out) => {
    for (let i = 0, o = byteOffset; i < count; i++, o += dim)
      out[i] = -byteL2(shifted, weights, bytes, o, dim);
  };
}

/** Σ w_j c_j over one row of codes, four partial sums. */
function byteDot(w: Float32Array, c: Uint8Array, co: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    s0 += w[j]! * c[co + j]!;
    s1 += w[j + 1]! * c[co + j + 1]!;
    s2 += w[j + 2]! * c[co + j + 2]!;
    s3 += w[j + 3]! * c[co + j + 3]!;
  }
  for (; j < dim; j++) s0 += w[j]! * c[co + j]!;
  return s0 + s1 + s2 + s3;
}

/** Σ (a_j - step_j c_j)² over one row of codes. */
function byteL2(a: Float32Array, step: Float32Array, c: Uint8Array, co: number, dim: number) {
  let s0 = 0;
  let s1 = 0;
  let j = 0;
  for (; j + 1 < dim; j += 2) {
    const d0 = a[j]! - step[j]! * c[co + j]!;
    const d1 = a[j + 1]! - step[j + 1]! * c[co + j + 1]!;
    s0 += d0 * d0;
    s1 += d1 * d1;
  }
  for (; j < dim; j++) {
    const d = a[j]! - step[j]! * c[co + j]!;
    s0 += d * d;
  }
  return s0 + s1;
}
