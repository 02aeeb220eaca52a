/**
 * The fast block-max search (`search: bmp`) against exhaustive scoring: same passages, same
 * scores (bit for bit, float mode included), on random and adversarial postings, for block
 * sizes and dense/sparse splits that put terms on both sides, and bounds that are never below a
 * true block maximum.
 */
import { describe, expect, it } from 'vitest';
import type { SparseIndexData } from '../../src/index/types.js';
import { boundMatrix, type BoundMatrixOptions } from '../../src/search/bmp/bound-matrix.js';
import { bmpScratch, bmpSearch } from '../../src/search/bmp/bmp-search.js';
import { exhaustiveScratch, exhaustiveSearch } from '../../src/search/exhaustive.js';
import { queryTerms } from '../../src/search/query-terms.js';
import type { PassageFilter } from '../../src/search/types.js';
import { buildFromVectors, randomVectors, seeded, type RandomVector } from '../helpers/random.js';

/** Block sizes and dense shares: every term dense, the usual split, every term sparse. */
const LAYOUTS: BoundMatrixOptions[] = [
  {},
  { blockSize: 8 },
  { blockSize: 8, denseShare: 0 },
  { blockSize: 8, denseShare: 2 },
  { blockSize: 1, denseShare: 0.3 },
  { blockSize: 4, denseShare: 0.05 },
  { blockSize: 32 },
  // Room for 2 dense rows of 437 passages in blocks of 4 (a capped index: the rest go sparse).
  { denseShare: 0, maxDenseBytes: 2 * 128 },
];

function expectSame(
  index: SparseIndexData,
  vector: Record<string, number>,
  ks: number[],
  layouts: BoundMatrixOptions[] = LAYOUTS,
  filter?: PassageFilter,
): void {
  const lookup = new Map(index.terms.map((t, i) => [t, i]));
  const query = queryTerms(lookup, vector, index.quantization);
  const reference = exhaustiveScratch(index);
  for (const layout of layouts) {
    const scratch = bmpScratch(index, layout);
    for (const k of ks) {
      const exhaustive = exhaustiveSearch(index, query, { k, filter }, reference);
      const bmp = bmpSearch(query, { k, filter }, scratch);
      expect(Array.from(bmp.ids), `layout ${JSON.stringify(layout)}, k ${k}`).toEqual(
        Array.from(exhaustive.ids),
      );
      expect(Array.from(bmp.scores)).toEqual(Array.from(exhaustive.scores));
    }
  }
}

describe('search: bmp (small-block bounds summed with SIMD)', () => {
  for (const quantization of [50, 0, 1000]) {
    it(`equals exhaustive scoring on random postings (quantization ${quantization})`, () => {
      const random = seeded(100 + quantization);
      const vectors = randomVectors(random, 437, { vocabulary: 300, terms: 40, maxWeight: 3 });
      const index = buildFromVectors(vectors, { quantization });
      for (let q = 0; q < 8; q++) {
        const query = randomVectors(random, 1, { vocabulary: 300, terms: 30, maxWeight: 2.5 })[0]!
          .vector;
        expectSame(index, query, [1, 10, 100, 1000]);
      }
    });
  }

  it('single-term queries, a term in every passage, k beyond the matches, a partial last block', () => {
    const random = seeded(9);
    const vectors = randomVectors(random, 301, { vocabulary: 50, terms: 10, maxWeight: 3 }).map(
      (v, i) => ({ ...v, vector: { ...v.vector, everywhere: 0.1 + (i % 7) * 0.3 } }),
    );
    const index = buildFromVectors(vectors, { quantization: 50 });
    const queries: Record<string, number>[] = [
      { everywhere: 1 },
      { t3: 2 },
      { t49: 1, everywhere: 0.05 },
      { none: 1 },
    ];
    for (const query of queries) expectSame(index, query, [1, 10, 300, 301, 5000]);
  });

  it('breaks ties by passage order, whichever block is scored first', () => {
    const vectors = Array.from({ length: 100 }, (_, i) => ({
      id: `p${i}`,
      // The last passages weigh more on `b`, so their blocks' bounds are the highest.
      vector: { a: 1, b: i >= 90 ? 0.02 : 0.01, [`x${i}`]: 1 },
    }));
    const index = buildFromVectors(vectors, { quantization: 10 });
    for (const k of [1, 7, 50]) expectSame(index, { a: 1 }, [k]);
    expectSame(index, { a: 1, b: 0.001 }, [1, 7, 50]);
    expectSame(buildFromVectors(vectors, { quantization: 0 }), { a: 1, b: 1 }, [1, 7, 50]);
  });

  it('handles near-ties, a huge impact in the last block and many equal block maxima', () => {
    const vectors: RandomVector[] = Array.from({ length: 333 }, (_, i) => ({
      id: `p${i}`,
      vector: { common: 1 + (i % 3) * 0.0001, rare: i === 332 ? 500 : 0.02, [`u${i % 17}`]: 0.5 },
    }));
    for (const quantization of [50, 0, 100]) {
      const index = buildFromVectors(vectors, { quantization });
      const queries: Record<string, number>[] = [
        { common: 1 },
        { rare: 1, common: 0.1 },
        { u3: 2, common: 1 },
      ];
      for (const query of queries) expectSame(index, query, [1, 5, 64, 1000]);
    }
  });

  it('rounds block maxima up at the extremes of the byte scale (tiny, huge and 16-bit impacts)', () => {
    const random = seeded(17);
    const vectors: RandomVector[] = Array.from({ length: 257 }, (_, i) => ({
      id: `p${i}`,
      vector: {
        huge: 3e6 * (1 + random()),
        tiny: 1e-30 * (1 + random()),
        wide: i === 0 ? 65.535 : 0.001 + random() * 0.01,
        step: (i % 256) / 1000 + 0.001,
      },
    }));
    const floats = buildFromVectors(vectors, { quantization: 0 });
    const query = { huge: 1e-5, tiny: 1e30, wide: 3, step: 7 };
    expectSame(floats, query, [1, 3, 10, 257]);
    expectSame(floats, { tiny: 2 }, [1, 10]);
    const ints = buildFromVectors(
      vectors.map((v) => ({ ...v, vector: { wide: v.vector.wide!, step: v.vector.step! } })),
      { quantization: 1000 },
    );
    expectSame(ints, { wide: 0.5, step: 2 }, [1, 10, 100]);
    for (const index of [floats, ints]) expectBoundsSafe(index);
  });

  it('applies a passage filter inside the search, so a subset never runs short', () => {
    const random = seeded(3);
    const vectors = randomVectors(random, 500, { vocabulary: 100, terms: 20, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50 });
    const labels = Int32Array.from({ length: 500 }, (_, p) => (p % 5 === 0 ? 1 : 0));
    expectSame(index, { t1: 1, t2: 1, t50: 2 }, [1, 20, 200], LAYOUTS, { labels, wanted: 1 });
    expectSame(index, { t1: 1 }, [5], LAYOUTS, { labels, wanted: 7 });
  });

  it('scores a small share of the passages at top 10 on a skewed corpus', () => {
    const random = seeded(7);
    const vectors = randomVectors(random, 4000, { vocabulary: 2000, terms: 60, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50 });
    const lookup = new Map(index.terms.map((t, i) => [t, i]));
    const query = queryTerms(lookup, { t1: 0.3, t5: 0.2, t1500: 2.5, t1800: 2 }, 50);
    const hits = bmpSearch(query, { k: 10 }, bmpScratch(index));
    expect(hits.scored).toBeLessThan(400);
  });

  it('caps the dense rows, giving them to the terms in the most blocks', () => {
    const random = seeded(4);
    const vectors = randomVectors(random, 500, { vocabulary: 80, terms: 30, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50 });
    const rowBytes = 32 * Math.ceil(125 / 32);
    const matrix = boundMatrix(index, { denseShare: 0, maxDenseBytes: 5 * rowBytes });
    expect(matrix.denseTerms).toBeLessThanOrEqual(5);
    expect(matrix.denseTerms).toBeGreaterThan(0);
    const counts = (t: number) =>
      new Set(
        Array.from(
          index.invertedPassages.subarray(index.invertedOffsets[t], index.invertedOffsets[t + 1]),
          (p) => p >> 2,
        ),
      ).size;
    const dense = index.terms.map((_, t) => t).filter((t) => matrix.denseRow[t]! >= 0);
    const sparse = index.terms.map((_, t) => t).filter((t) => matrix.denseRow[t]! < 0);
    expect(Math.min(...dense.map(counts))).toBeGreaterThan(Math.max(...sparse.map(counts)));
    expect(boundMatrix(index, { maxDenseBytes: 0 }).denseTerms).toBe(0);
  });

  it('refuses a block size that is not a power of two', () => {
    const index = buildFromVectors(
      randomVectors(seeded(1), 20, { vocabulary: 9, terms: 3, maxWeight: 1 }),
      {
        quantization: 50,
      },
    );
    expect(() => bmpScratch(index, { blockSize: 6 })).toThrow(/power of two/);
  });
});

/** Every block byte times its term's unit is at least the block's true largest impact. */
function expectBoundsSafe(index: SparseIndexData): void {
  for (const layout of LAYOUTS) {
    const matrix = boundMatrix(index, layout);
    const size = 2 ** matrix.blockShift;
    for (let t = 0; t < index.terms.length; t++) {
      const bytes = new Map<number, number>();
      if (matrix.denseRow[t]! >= 0) {
        const row = matrix.kernel.rows.subarray(matrix.denseRow[t]! * matrix.kernel.rowBytes);
        for (let b = 0; b < matrix.blocks; b++) if (row[b]! > 0) bytes.set(b, row[b]!);
      } else
        for (let j = matrix.sparseOffsets[t]!; j < matrix.sparseOffsets[t + 1]!; j++)
          bytes.set(matrix.sparseBlocks[j]!, matrix.sparseMax[j]!);
      for (let j = index.invertedOffsets[t]!; j < index.invertedOffsets[t + 1]!; j++) {
        const byte = bytes.get(Math.floor(index.invertedPassages[j]! / size));
        expect(byte).toBeDefined();
        expect(byte!).toBeLessThanOrEqual(255);
        expect(byte! * matrix.units[t]!).toBeGreaterThanOrEqual(index.invertedImpacts[j]!);
      }
    }
  }
}
