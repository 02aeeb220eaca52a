import { describe, expect, it } from 'vitest';
import { blockMaxScratch, blockMaxSearch } from '../../src/search/block-max.js';
import { exhaustiveScratch, exhaustiveSearch } from '../../src/search/exhaustive.js';
import { impactOrderedScratch, impactOrderedSearch } from '../../src/search/impact-ordered.js';
import { maxScoreScratch, maxScoreSearch } from '../../src/search/max-score.js';
import { queryTerms } from '../../src/search/query-terms.js';
import { idArray } from '../../src/index/id-table.js';
import type { SparseIndexData } from '../../src/index/types.js';
import type { PassageFilter } from '../../src/search/types.js';
import {
  buildFromVectors,
  randomVectors,
  seeded,
  withImpactOrder,
  type RandomVector,
} from '../helpers/random.js';

/** Scores computed here from the raw vectors, independent of every index structure. */
function bruteForce(
  vectors: RandomVector[],
  query: Record<string, number>,
  quantization: number,
  k: number,
): { id: string; score: number }[] {
  const order = termOrders(vectors);
  const q = (w: number) => (quantization === 0 ? w : Math.trunc(w * quantization));
  const d = (w: number) => (quantization === 0 ? Math.fround(w) : Math.trunc(w * quantization));
  return vectors
    .map(({ id, vector }, p) => {
      let score = 0;
      for (const token of Object.keys(query).sort(
        (a, b) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9),
      ))
        if (vector[token] !== undefined && q(query[token]!) > 0 && d(vector[token]) > 0)
          score += q(query[token]!) * d(vector[token]);
      return { id, score, p };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.p - b.p)
    .slice(0, k)
    .map(({ id, score }) => ({ id, score }));
}

/** First-appearance order of tokens, which is the index's term id order. */
function termOrders(vectors: RandomVector[]): Map<string, number> {
  const order = new Map<string, number>();
  for (const { vector } of vectors)
    for (const t of Object.keys(vector)) if (!order.has(t)) order.set(t, order.size);
  return order;
}

function both(
  index: SparseIndexData,
  vector: Record<string, number>,
  k: number,
  filter?: PassageFilter,
) {
  const lookup = new Map(index.terms.map((t, i) => [t, i]));
  const query = queryTerms(lookup, vector, index.quantization);
  const exhaustive = exhaustiveSearch(index, query, { k, filter }, exhaustiveScratch(index));
  const pruned = blockMaxSearch(index, query, { k, filter }, blockMaxScratch(index));
  const maxScore = maxScoreSearch(index, query, { k, filter }, maxScoreScratch(index));
  expect(Array.from(maxScore.ids)).toEqual(Array.from(exhaustive.ids));
  expect(Array.from(maxScore.scores)).toEqual(Array.from(exhaustive.scores));
  const ordered = withImpactOrder(index);
  const impact = impactOrderedSearch(ordered, query, { k, filter }, impactOrderedScratch(ordered));
  expect(Array.from(impact.ids)).toEqual(Array.from(exhaustive.ids));
  expect(Array.from(impact.scores)).toEqual(Array.from(exhaustive.scores));
  return { exhaustive, pruned, maxScore, impact };
}

const named = (index: SparseIndexData, hits: { ids: Int32Array; scores: Float64Array }) =>
  Array.from(hits.ids, (p, i) => ({ id: index.passageIds.at(p)!, score: hits.scores[i]! }));

describe('safe pruning (block-max, MaxScore and impact-ordered)', () => {
  for (const quantization of [50, 0]) {
    it(`equals exhaustive scoring and a brute-force reference (quantization ${quantization})`, () => {
      const random = seeded(quantization + 1);
      const vectors = randomVectors(random, 400, { vocabulary: 300, terms: 40, maxWeight: 3 });
      const index = buildFromVectors(vectors, { quantization, blockSize: 8 });
      for (let q = 0; q < 15; q++) {
        const query = randomVectors(random, 1, { vocabulary: 300, terms: 30, maxWeight: 2.5 })[0]!
          .vector;
        for (const k of [1, 10, 100, 1000]) {
          const { exhaustive, pruned } = both(index, query, k);
          expect(Array.from(pruned.ids)).toEqual(Array.from(exhaustive.ids));
          expect(Array.from(pruned.scores)).toEqual(Array.from(exhaustive.scores));
          expect(named(index, exhaustive)).toEqual(bruteForce(vectors, query, quantization, k));
        }
      }
    });
  }

  it('equals the brute-force reference on an index whose passages were clustered', () => {
    const random = seeded(5);
    const vectors = randomVectors(random, 600, { vocabulary: 400, terms: 40, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50, blockSize: 8, reorder: true });
    expect(index.passageIds).not.toEqual(vectors.map((v) => v.id));
    expect(idArray(index.passageIds).sort()).toEqual(vectors.map((v) => v.id).sort());
    for (let q = 0; q < 10; q++) {
      const query = randomVectors(random, 1, { vocabulary: 400, terms: 30, maxWeight: 2.5 })[0]!
        .vector;
      for (const k of [1, 10, 1000]) {
        const { exhaustive, pruned } = both(index, query, k);
        expect(Array.from(pruned.ids)).toEqual(Array.from(exhaustive.ids));
        // Scores match the reference; equal scores may come in another order (index order).
        const scores = named(index, exhaustive).map((hit) => hit.score);
        expect(scores).toEqual(bruteForce(vectors, query, 50, k).map((hit) => hit.score));
      }
    }
  });

  it('single-term queries, a term in every passage, and k beyond the matches', () => {
    const random = seeded(9);
    const vectors = randomVectors(random, 300, { vocabulary: 50, terms: 10, maxWeight: 3 }).map(
      (v, i) => ({ ...v, vector: { ...v.vector, everywhere: 0.1 + (i % 7) * 0.3 } }),
    );
    const index = buildFromVectors(vectors, { quantization: 50, blockSize: 16 });
    const queries: Record<string, number>[] = [
      { everywhere: 1 },
      { t3: 2 },
      { t49: 1, everywhere: 0.05 },
    ];
    for (const query of queries)
      for (const k of [1, 10, 299, 300, 5000]) {
        const { exhaustive, pruned } = both(index, query, k);
        expect(Array.from(pruned.ids)).toEqual(Array.from(exhaustive.ids));
        expect(named(index, exhaustive)).toEqual(bruteForce(vectors, query, 50, k));
      }
  });

  it('breaks ties by passage order when every passage scores the same', () => {
    const vectors = Array.from({ length: 50 }, (_, i) => ({
      id: `p${i}`,
      vector: { a: 1, [`x${i}`]: 1 },
    }));
    const index = buildFromVectors(vectors, { quantization: 10, blockSize: 4 });
    const { exhaustive, pruned } = both(index, { a: 1 }, 7);
    expect(Array.from(pruned.ids)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(Array.from(exhaustive.ids)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('handles adversarial postings: one huge impact in a late block, many near-ties', () => {
    const vectors: RandomVector[] = Array.from({ length: 300 }, (_, i) => ({
      id: `p${i}`,
      vector: { common: 1 + (i % 3) * 0.02, rare: i === 299 ? 500 : 0.02, [`u${i % 17}`]: 0.5 },
    }));
    const index = buildFromVectors(vectors, { quantization: 50, blockSize: 16 });
    const queries: Record<string, number>[] = [
      { common: 1 },
      { rare: 1, common: 0.1 },
      { u3: 2, common: 1 },
      { nothing: 1 },
    ];
    for (const query of queries) {
      for (const k of [1, 5, 64, 1000]) {
        const { exhaustive, pruned } = both(index, query, k);
        expect(Array.from(pruned.ids)).toEqual(Array.from(exhaustive.ids));
        expect(Array.from(pruned.scores)).toEqual(Array.from(exhaustive.scores));
      }
    }
  });

  it('scores far fewer passages than exhaustive scoring when the top k is small', () => {
    const random = seeded(7);
    const vectors = randomVectors(random, 3000, { vocabulary: 2000, terms: 60, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50, blockSize: 32 });
    const query = { t1: 0.3, t5: 0.2, t1500: 2.5, t1800: 2 };
    const { exhaustive, pruned, impact } = both(index, query, 10);
    expect(Array.from(pruned.ids)).toEqual(Array.from(exhaustive.ids));
    expect(pruned.scored).toBeLessThan(exhaustive.scored / 2);
    expect(impact.scored).toBeLessThan(exhaustive.scored / 2);
  });

  it('impact-ordered search equals exhaustive through many rounds, with and without a filter', () => {
    // Skewed weights (a few heavy postings per term, many light ones) make the search stop
    // gathering early and narrow its candidates over several rounds.
    const random = seeded(11);
    const vectors = randomVectors(random, 3000, { vocabulary: 600, terms: 50, maxWeight: 1 }).map(
      (v) => ({
        ...v,
        vector: Object.fromEntries(
          Object.entries(v.vector).map(([t, w]) => [t, random() < 0.05 ? 2 + w * 3 : w * 0.4]),
        ),
      }),
    );
    const labels = Int32Array.from({ length: 3000 }, (_, p) => (p % 3 === 0 ? 1 : 0));
    for (const quantization of [50, 0]) {
      const index = buildFromVectors(vectors, { quantization });
      for (let q = 0; q < 8; q++) {
        const query = randomVectors(random, 1, { vocabulary: 600, terms: 30, maxWeight: 2 })[0]!
          .vector;
        for (const k of [1, 10, 100, 2999])
          for (const filter of [undefined, { labels, wanted: 1 }]) both(index, query, k, filter);
      }
    }
  });

  it('applies a passage filter inside the search, so a subset never runs short', () => {
    const random = seeded(3);
    const vectors = randomVectors(random, 500, { vocabulary: 100, terms: 20, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50, blockSize: 8 });
    const labels = Int32Array.from({ length: 500 }, (_, p) => (p % 5 === 0 ? 1 : 0));
    const filter = { labels, wanted: 1 };
    const { exhaustive, pruned } = both(index, { t1: 1, t2: 1, t50: 2 }, 20, filter);
    expect(Array.from(pruned.ids)).toEqual(Array.from(exhaustive.ids));
    expect(pruned.ids.length).toBe(20);
    expect(Array.from(pruned.ids).every((p) => p % 5 === 0)).toBe(true);
  });
});
