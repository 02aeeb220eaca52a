/**
 * usearch's int8 storage normalizes every vector before casting (it is cosine in effect, for
 * both `ip` and `l2sq`). To keep inner-product and L2 rankings exact up to quantization, the
 * vectors are mapped to unit vectors whose cosine with the mapped query orders results like the
 * original metric (the MIPS-to-cosine reduction of Bachrach et al. 2014):
 *
 * - ip: x' = [x/M, sqrt(1 - |x|^2/M^2)], q' = [q, 0]; cos = q.x / (M |q|).
 * - l2: y = [x, |x|^2], p = [2q, -1], so p.y = 2 q.x - |x|^2 = |q|^2 - |q - x|^2; then y gets
 *   the ip mapping with M = max |y|.
 *
 * M is stored in the manifest as `sq8Norm`.
 */
import type { Metric } from './types.js';

/** How many dimensions the mapping adds for `metric`. */
export function sq8ExtraDims(metric: Metric): number {
  return metric === 'ip' ? 1 : 2;
}

/** The largest |x|² of `n * dim` vectors. */
export function maxSquaredNorm(vectors: Float32Array, dim: number): number {
  let max = 0;
  for (let o = 0; o < vectors.length; o += dim) {
    let sq = 0;
    for (let j = 0; j < dim; j++) sq += vectors[o + j]! * vectors[o + j]!;
    if (sq > max) max = sq;
  }
  return max;
}

/** M, the largest norm of the (for l2, lifted) vectors, from the largest |x|² (the l2 lift |x|² + |x|⁴ grows with |x|², so its maximum is there). */
export function sq8NormOf(maxSquared: number, metric: Metric): number {
  return Math.sqrt(metric === 'ip' ? maxSquared : maxSquared + maxSquared * maxSquared) || 1;
}

/** Maps `n * dim` vectors to `n * (dim + extra)` unit vectors. */
export function sq8MapVectors(vectors: Float32Array, dim: number, metric: Metric, norm: number) {
  const out = sq8ExtraDims(metric) + dim;
  const n = vectors.length / dim;
  const mapped = new Float32Array(n * out);
  for (let i = 0; i < n; i++) {
    let sq = 0;
    for (let j = 0; j < dim; j++) {
      const x = vectors[i * dim + j]!;
      sq += x * x;
      mapped[i * out + j] = x / norm;
    }
    let lifted = sq;
    if (metric === 'l2') {
      mapped[i * out + dim] = sq / norm;
      lifted = sq + sq * sq;
    }
    mapped[i * out + out - 1] = Math.sqrt(Math.max(0, 1 - lifted / (norm * norm)));
  }
  return mapped;
}

/** Maps queries; returns them with the per-query factors that turn a cosine back into a score. */
export function sq8MapQueries(queries: Float32Array, dim: number, metric: Metric) {
  const out = sq8ExtraDims(metric) + dim;
  const n = queries.length / dim;
  const mapped = new Float32Array(n * out);
  const qnorm2 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sq = 0;
    for (let j = 0; j < dim; j++) {
      const x = queries[i * dim + j]!;
      sq += x * x;
      mapped[i * out + j] = metric === 'ip' ? x : 2 * x;
    }
    if (metric === 'l2') mapped[i * out + dim] = -1;
    qnorm2[i] = sq;
  }
  return { mapped, qnorm2 };
}

/** Score from usearch's int8 `1 - cos * 127^2` distance for query `q`. */
export function sq8Score(distance: number, qnorm2: number, metric: Metric, norm: number): number {
  const cos = (1 - distance) / (127 * 127);
  if (metric === 'ip') return cos * norm * Math.sqrt(qnorm2);
  // |p| = sqrt(4 |q|^2 + 1); p.y = cos M |p| = |q|^2 - |q - x|^2.
  return cos * norm * Math.sqrt(4 * qnorm2 + 1) - qnorm2;
}
