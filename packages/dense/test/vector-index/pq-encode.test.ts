import { describe, expect, it } from 'vitest';
import { assign } from '../../src/vector-index/kmeans.js';
import { residuals } from '../../src/vector-index/ivf-encode.js';
import { encodePq, PQ_KSUB, subspace, trainPq } from '../../src/vector-index/pq.js';
import { randomVectors } from './helpers.js';

/**
 * The codes as the exhaustive search gives them (the encoder before pq-encode.wat): each
 * sub-space's rows assigned to its 256 centroids by the Flat kernel, l2, one thread.
 */
function searchedCodes(m: number, dsub: number, codebooks: Float32Array, data: Float32Array) {
  const dim = m * dsub;
  const n = data.length / dim;
  const codes = new Uint8Array(n * m);
  for (let j = 0; j < m; j++) {
    const book = codebooks.subarray(j * PQ_KSUB * dsub, (j + 1) * PQ_KSUB * dsub);
    const labels = assign(book, subspace(data, dim, dsub, j), dsub, 'l2', 1);
    for (let i = 0; i < n; i++) codes[i * m + j] = labels[i]!;
  }
  return codes;
}

describe('encodePq (pq-encode.wat) against the exhaustive search', { timeout: 60_000 }, () => {
  it.each([
    [8, 96],
    [4, 2],
    [3, 5],
    [12, 4],
    [1, 7],
    [10, 3],
  ])('gives the same codes with dsub %i, m %i (batches, padding, a tail of rows)', (dsub, m) => {
    const dim = m * dsub;
    const codebooks = randomVectors(m * PQ_KSUB, dsub, 11 + dsub, false);
    // More than one batch of 1,024 rows, and a last one that is not full.
    const data = randomVectors(1500, dim, 3 + m, false);
    expect(encodePq({ m, dsub, codebooks }, data)).toEqual(searchedCodes(m, dsub, codebooks, data));
  });

  it('gives the same codes with trained codebooks on residual-like data, ties included', () => {
    const dim = 32;
    const m = 8;
    const data = randomVectors(2000, dim, 5);
    const pq = trainPq(data, dim, m, { seed: 1, iterations: 4, threads: 1 });
    // Duplicate centroids (equal scores: the first wins) and rows equal to centroids.
    pq.codebooks.copyWithin(4 * 10, 4 * 3, 4 * 4);
    const exact = new Float32Array(dim);
    for (let j = 0; j < m; j++)
      exact.set(pq.codebooks.subarray((j * 256 + 3) * 4, (j * 256 + 4) * 4), j * 4);
    const rows = new Float32Array([...data, ...exact, ...new Float32Array(dim)]);
    const codes = encodePq(pq, rows);
    expect(codes).toEqual(searchedCodes(m, pq.dsub, pq.codebooks, rows));
    expect([...codes.subarray(2000 * m, 2001 * m)]).toEqual(new Array(m).fill(3));
  });

  it('gives 255 where no centroid scores (a NaN), as the search did; infinities as it did', () => {
    const dsub = 4;
    const m = 2;
    const codebooks = randomVectors(m * PQ_KSUB, dsub, 2, false);
    // A NaN, a row of infinities of both signs, a single infinity.
    const data = new Float32Array(24);
    data.set([NaN, 0, 0, 0, 0.1, 0.2, 0.3, 0.4]);
    data.set([Infinity, -Infinity, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Infinity, 0, 0, 0], 8);
    const codes = encodePq({ m, dsub, codebooks }, data);
    expect(codes).toEqual(searchedCodes(m, dsub, codebooks, data));
    expect(codes[0]).toBe(255);
  });

  it('encodes residuals to their centroids as it encodes the residuals computed first', () => {
    const [dim, m, n, nlist] = [24, 8, 1300, 5];
    const data = randomVectors(n, dim, 21);
    const centroids = randomVectors(nlist, dim, 22);
    const labels = Int32Array.from({ length: n }, (_, i) => (i * 7) % nlist);
    const pq = { m, dsub: 3, codebooks: randomVectors(m * PQ_KSUB, 3, 23, false) };
    const computed = residuals(data, centroids, dim, 'ip', 1, labels);
    expect(encodePq(pq, data, { labels, centroids })).toEqual(encodePq(pq, computed));
    expect(encodePq(pq, computed)).toEqual(searchedCodes(m, 3, pq.codebooks, computed));
  });
});
