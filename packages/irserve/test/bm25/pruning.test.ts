import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../src/engines/bm25/bm25-index.js';
import { IndexBuilder } from '../../src/engines/bm25/index-builder.js';
import type { IndexData } from '../../src/engines/bm25/index-data.js';
import { maxScoreSearch } from '../../src/engines/bm25/max-score.js';
import type { DocFilter, TopDocs, WeightedTerm } from '../../src/engines/bm25/search-types.js';
import { exhaustiveSearch } from '../../src/engines/bm25/exhaustive.js';
import { termScore } from '../../src/engines/bm25/scoring.js';
import { EXHAUSTIVE_MAX_DOCS } from '../../src/engines/bm25/exhaustive-threshold.js';
import { searchTopDocs } from '../../src/engines/bm25/top-docs.js';
import { random } from '../helpers/random.js';
import { randomIndexData } from './random-data.js';

function randomIndex(
  seed: number,
  numDocs: number,
  vocabulary: number,
  options: { wasm?: boolean } = {},
): Bm25Index {
  return new Bm25Index(randomIndexData(seed, numDocs, vocabulary), { k1: 0.9, b: 0.4 }, options);
}

/** Exhaustive term-at-a-time scoring of every document, written plainly as the reference. */
function exhaustive(
  index: Bm25Index,
  terms: WeightedTerm[],
  k: number,
  filter?: DocFilter,
): TopDocs {
  const { postingStart, postingDocs, postingTfs, norms } = index.data as IndexData;
  const acc = new Float64Array(index.numDocs);
  for (const { term, weight } of terms) {
    for (let p = postingStart[term]!; p < postingStart[term + 1]!; p++) {
      const d = postingDocs[p]!;
      acc[d]! += termScore(weight, postingTfs[p]!, index.normInverse[norms[d]!]!);
    }
  }
  const docs = [...acc.keys()]
    .filter((d) => acc[d]! > 0 && (!filter || filter.labels[d] === filter.wanted))
    .sort((a, b) => acc[b]! - acc[a]! || a - b)
    .slice(0, k);
  return { docs, scores: docs.map((d) => acc[d]!) };
}

function randomQuery(index: Bm25Index, rand: () => number): WeightedTerm[] {
  const n = 1 + Math.floor(rand() * 8);
  const terms: WeightedTerm[] = [];
  for (let i = 0; i < n; i++) {
    const term = Math.floor(rand() * index.data.stats.numTerms);
    terms.push({ term, weight: (1 + Math.floor(rand() * 2)) * index.idf(term) });
  }
  return terms;
}

/** Same top-k: equal scores at every rank, and the same documents wherever scores differ from the k-th. */
function expectSameTopK(actual: TopDocs, expected: TopDocs): void {
  expect(actual.docs.length).toBe(expected.docs.length);
  expected.scores.forEach((score, i) => expect(actual.scores[i]).toBeCloseTo(score, 9));
  const kth = expected.scores[expected.scores.length - 1] ?? 0;
  const clear = (top: TopDocs) => [...top.docs].filter((_, i) => top.scores[i]! > kth + 1e-9);
  expect(new Set(clear(actual))).toEqual(new Set(clear(expected)));
}

type Search = (index: Bm25Index, terms: WeightedTerm[], k: number, filter?: DocFilter) => TopDocs;

describe.each<[string, Search]>([
  ['MaxScore', maxScoreSearch],
  ['exhaustive', (index, terms, k, filter) => exhaustiveSearch(index, terms, k, filter)],
  [
    'exhaustive with a heap',
    (index, terms, k, filter) => exhaustiveSearch(index, terms, k, filter, {}, 'heap'),
  ],
  [
    'exhaustive with buckets',
    (index, terms, k, filter) => exhaustiveSearch(index, terms, k, filter, {}, 'buckets'),
  ],
])('%s top-k', (_name, search) => {
  const index = randomIndex(7, 15_000, 2000);

  it('returns exactly the exhaustive top-k on random queries', () => {
    const rand = random(42);
    for (let q = 0; q < 300; q++) {
      const terms = randomQuery(index, rand);
      const k = [1, 5, 10, 100, 1000][q % 5]!;
      expectSameTopK(search(index, terms, k), exhaustive(index, terms, k));
    }
  });

  it('returns exactly the exhaustive top-k within a subset', () => {
    const rand = random(3);
    const labels = Int32Array.from({ length: index.numDocs }, (_, d) => d % 3);
    for (let q = 0; q < 100; q++) {
      const terms = randomQuery(index, rand);
      const filter = { labels, wanted: q % 3 };
      const result = search(index, terms, 10, filter);
      expectSameTopK(result, exhaustive(index, terms, 10, filter));
      for (const d of result.docs) expect(d % 3).toBe(q % 3);
    }
  });

  it('breaks ties by document order, like Lucene', () => {
    const builder = new IndexBuilder();
    for (let d = 0; d < 20; d++) builder.addDocument(`d${d}`, ['same', 'words']);
    const small = new Bm25Index(builder.finish(), { k1: 0.9, b: 0.4 });
    const term = small.termId('same');
    const top = search(small, [{ term, weight: small.idf(term) }], 5);
    expect([...top.docs]).toEqual([0, 1, 2, 3, 4]);
  });

  it('handles empty queries and k larger than the matches', () => {
    expect(search(index, [], 10).docs).toHaveLength(0);
    const term = index.termId('t1500');
    const all = search(index, [{ term, weight: 1 }], 10_000);
    expect(all.docs.length).toBe(index.docFreq(term));
  });
});

describe('searchTopDocs', () => {
  it('scores small collections exhaustively and large ones with MaxScore, with the same results', () => {
    const small = randomIndex(5, 2_000, 500);
    const large = randomIndex(6, EXHAUSTIVE_MAX_DOCS + 1, 500);
    const rand = random(9);
    for (const index of [small, large]) {
      for (let q = 0; q < 20; q++) {
        const terms = randomQuery(index, rand);
        expectSameTopK(searchTopDocs(index, terms, 10), exhaustive(index, terms, 10));
      }
    }
  });

  it('adds postings in WebAssembly for small collections, with the JavaScript scores to the bit', () => {
    const wasm = randomIndex(11, 3_000, 800);
    const js = randomIndex(11, 3_000, 800, { wasm: false });
    expect(wasm.kernel).toBeDefined();
    expect(js.kernel).toBeUndefined();
    expect(randomIndex(12, EXHAUSTIVE_MAX_DOCS + 1, 50).kernel).toBeUndefined();
    // A damaged index whose postings name a document out of range stays in JavaScript.
    const data = new IndexBuilder();
    data.addDocument('a', ['x']);
    const damaged = data.finish();
    damaged.postingDocs[0] = 5;
    expect(new Bm25Index(damaged, { k1: 0.9, b: 0.4 }).kernel).toBeUndefined();
    const rand = random(13);
    const labels = Int32Array.from({ length: wasm.numDocs }, (_, d) => d % 3);
    for (let q = 0; q < 100; q++) {
      const terms = randomQuery(wasm, rand);
      const k = [1, 10, 100, 1000][q % 4]!;
      const filter = q % 5 === 0 ? { labels, wanted: 1 } : undefined;
      for (const selection of ['heap', 'buckets'] as const) {
        const expected = exhaustiveSearch(js, terms, k, filter, {}, selection);
        expect(exhaustiveSearch(wasm, terms, k, filter, {}, selection)).toEqual(expected);
      }
    }
  });

  it('reuses the per-document scratch: a second search starts from zero', () => {
    const index = randomIndex(8, 500, 50);
    const term = index.termId('t1');
    const terms = [{ term, weight: index.idf(term) }];
    const first = searchTopDocs(index, terms, 5);
    expect(searchTopDocs(index, terms, 5)).toEqual(first);
  });
});
