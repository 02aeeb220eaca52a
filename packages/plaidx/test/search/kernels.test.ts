import { describe, expect, it } from 'vitest';
import { dot, seededRandom } from '@irserve/dense';
import { dotRows } from '../../src/search/dots.js';
import { maxSim } from '../../src/search/maxsim.js';
import { bestCells } from '../../src/search/stages.js';

function randomRows(rows: number, dim: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  return Float32Array.from({ length: rows * dim }, () => random() - 0.5);
}

describe('search kernels', () => {
  it('dotRows equals one dot per pair, whatever the remainder of the blocking by four', () => {
    for (const bRows of [1, 3, 4, 7, 32]) {
      const a = randomRows(5, 13, 1);
      const b = randomRows(bRows, 13, 2);
      const out = new Float32Array(4 * bRows);
      dotRows(a, 1, 4, b, bRows, 13, out);
      for (let i = 0; i < 4; i++)
        for (let j = 0; j < bRows; j++)
          expect(out[i * bRows + j]).toBeCloseTo(dot(a, (i + 1) * 13, b, j * 13, 13), 5);
    }
  });

  it('maxSim equals the naive double loop, with or without a scratch buffer, and 0 for no tokens', () => {
    const dim = 16;
    const query = { vectors: randomRows(6, dim, 3), length: 6, dim };
    const docs = randomRows(20, dim, 4);
    let naive = 0;
    for (let t = 0; t < 6; t++) {
      let best = -Infinity;
      for (let e = 5; e < 14; e++)
        best = Math.max(best, dot(query.vectors, t * dim, docs, e * dim, dim));
      naive += best;
    }
    expect(maxSim(query, docs, 5, 9)).toBeCloseTo(naive, 5);
    expect(maxSim(query, docs, 5, 9, new Float64Array(12))).toBeCloseTo(naive, 5);
    expect(maxSim(query, docs, 5, 0)).toBe(0);
  });

  it('bestCells picks each token’s ncells best centroids once, earlier centroid first on ties', () => {
    // 4 centroids x 2 tokens, at c * 2 + t.
    const scores = Float32Array.from([0.1, 0.9, 0.8, 0.2, 0.8, 0.3, 0.05, 0.95]);
    expect([...bestCells(scores, 2, 4, 1)].sort()).toEqual([1, 3]);
    expect([...bestCells(scores, 2, 4, 2)].sort()).toEqual([0, 1, 2, 3]);
    expect(bestCells(scores, 2, 4, 0)).toHaveLength(0);
    expect(bestCells(scores, 2, 4, 99)).toHaveLength(4);
  });
});
