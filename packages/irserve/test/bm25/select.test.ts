import { describe, expect, it } from 'vitest';
import { ScoringKernel } from '../../src/engines/bm25/scoring-kernel.js';
import { BucketSelect } from '../../src/engines/bm25/select.js';
import { random } from '../helpers/random.js';

/** The reference: sort every matching document, best first, lower document on ties. */
function reference(acc: Float64Array, k: number, labels?: Int32Array, wanted?: number) {
  const docs = [...acc.keys()]
    .filter((d) => acc[d]! > 0 && (labels === undefined || labels[d] === wanted))
    .sort((a, b) => acc[b]! - acc[a]! || a - b)
    .slice(0, k);
  return { docs, scores: docs.map((d) => acc[d]!) };
}

/**
 * The top k by BucketSelect, checked to be the same whether the documents to lay out are found
 * in JavaScript or by a kernel's `collect` (in WebAssembly, over a copy of `acc` in its memory).
 */
function top(acc: Float64Array, k: number, filter?: { labels: Int32Array; wanted: number }) {
  const bound = Math.max(0, ...acc);
  const n = acc.length;
  const plain = new BucketSelect(n).top(acc, n, k, bound, filter);
  const kernel = ScoringKernel.over(new Int32Array(0), n)!;
  kernel.acc.set(acc);
  const inKernel = new BucketSelect(n).top(kernel.acc, n, k, bound, filter, kernel);
  expect(inKernel).toEqual(plain);
  return { docs: [...plain.docs], scores: [...plain.scores] };
}

describe('BucketSelect', () => {
  it('matches a full sort on random scores, for every k', () => {
    const rand = random(1);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rand() * 3000);
      const acc = Float64Array.from({ length: n }, () => (rand() < 0.4 ? 0 : rand() * 30));
      const k = [1, 3, 10, 31, 32, 100, 1000, 5000][trial % 8]!;
      expect(top(acc, k)).toEqual(reference(acc, k));
    }
  });

  it('breaks ties by document, inside and across the bucket of the k-th', () => {
    const acc = Float64Array.from({ length: 500 }, (_, d) => (d % 7 === 0 ? 0 : 1 + (d % 3)));
    for (const k of [1, 10, 100, 200, 450]) expect(top(acc, k)).toEqual(reference(acc, k));
  });

  it('orders crowded buckets (skewed scores) and widely spread ones', () => {
    const rand = random(2);
    // One huge score puts every other document in the lowest buckets.
    const skewed = Float64Array.from({ length: 4000 }, () => rand() * 1e-3);
    skewed[1234] = 1e6;
    expect(top(skewed, 100)).toEqual(reference(skewed, 100));
    // Scores spanning many orders of magnitude, in decreasing document order.
    const spread = Float64Array.from({ length: 2000 }, (_, d) => 2 ** (-d / 50));
    expect(top(spread, 300)).toEqual(reference(spread, 300));
  });

  it('returns every match when fewer than k documents score above 0', () => {
    const acc = new Float64Array(1000);
    acc[999] = 0.5;
    acc[3] = 1e-9;
    acc[500] = 2;
    expect(top(acc, 10)).toEqual({ docs: [500, 999, 3], scores: [2, 0.5, 1e-9] });
    expect(top(new Float64Array(50), 10)).toEqual({ docs: [], scores: [] });
  });

  it('keeps only the documents of the filter', () => {
    const rand = random(3);
    const acc = Float64Array.from({ length: 2000 }, () => (rand() < 0.5 ? 0 : rand()));
    const labels = Int32Array.from({ length: 2000 }, (_, d) => d % 5);
    for (const k of [5, 50, 1000]) {
      const expected = reference(acc, k, labels, 2);
      expect(top(acc, k, { labels, wanted: 2 })).toEqual(expected);
    }
  });

  it('is reused across searches without carrying anything over', () => {
    const select = new BucketSelect(100);
    const first = Float64Array.from({ length: 100 }, (_, d) => d);
    const second = Float64Array.from({ length: 60 }, (_, d) => 60 - d);
    expect([...select.top(first, 100, 3, 99).docs]).toEqual([99, 98, 97]);
    expect([...select.top(second, 60, 3, 60).docs]).toEqual([0, 1, 2]);
  });

  it('tolerates a score a rounding error above the bound', () => {
    const acc = Float64Array.of(1, 2, 3 * (1 + 2 ** -50));
    const result = new BucketSelect(3).top(acc, 3, 2, 3);
    expect([...result.docs]).toEqual([2, 1]);
  });
});
