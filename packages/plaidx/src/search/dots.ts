/**
 * Blocked inner products for late interaction: one row of `a` against four rows of `b` per
 * pass, so each element of the `a` row is loaded once for four multiply-adds (the plain
 * `dot` loads two floats per multiply-add). The hot loop of centroid scoring, exact MaxSim
 * and the bench's brute force.
 */
import { dot } from '@irserve/dense';

/**
 * `out[outOffset + j] = a[ao ..] · b[bo + j * dim ..]` for the four rows j = 0..3 of `b`.
 *
 * @example dot4(doc, 0, query, 0, 128, scores, 0) // scores[0..3] = doc row 0 · query rows 0..3
 */
export function dot4(
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  dim: number,
  out: Float32Array | Float64Array,
  outOffset: number,
): void {
  const b1 = bo + dim;
  const b2 = b1 + dim;
  const b3 = b2 + dim;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < dim; i++) {
    const x = a[ao + i]!;
    s0 += x * b[bo + i]!;
    s1 += x * b[b1 + i]!;
    s2 += x * b[b2 + i]!;
    s3 += x * b[b3 + i]!;
  }
  out[outOffset] = s0;
  out[outOffset + 1] = s1;
  out[outOffset + 2] = s2;
  out[outOffset + 3] = s3;
}

/**
 * Every product of `aRows` rows of `a` (from row `aFirst`) with the `bRows` rows of `b`:
 * `out[i * bRows + j] = a_(aFirst + i) · b_j`.
 *
 * @example dotRows(centroids, 0, numCentroids, query.vectors, query.length, dim, scores)
 */
export function dotRows(
  a: Float32Array,
  aFirst: number,
  aRows: number,
  b: Float32Array,
  bRows: number,
  dim: number,
  out: Float32Array | Float64Array,
): void {
  const blocked = bRows - (bRows % 4);
  for (let i = 0; i < aRows; i++) {
    const ao = (aFirst + i) * dim;
    const row = i * bRows;
    for (let j = 0; j < blocked; j += 4) dot4(a, ao, b, j * dim, dim, out, row + j);
    for (let j = blocked; j < bRows; j++) out[row + j] = dot(a, ao, b, j * dim, dim);
  }
}
