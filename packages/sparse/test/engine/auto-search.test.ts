import { describe, expect, it } from 'vitest';
import { AUTO_BMP_MAX_K, autoBmpMaxK, boundSearch } from '../../src/engine/strategies.js';
import { queryTerms } from '../../src/search/query-terms.js';
import { buildFromVectors, randomVectors, seeded } from '../helpers/random.js';

describe('search: auto', () => {
  it('returns what exhaustive search returns below, at and above its switch-over depth', () => {
    const random = seeded(21);
    const vectors = randomVectors(random, 800, { vocabulary: 200, terms: 30, maxWeight: 3 });
    const index = buildFromVectors(vectors, { quantization: 50 });
    const lookup = new Map(index.terms.map((t, i) => [t, i]));
    const auto = boundSearch(index, 'auto');
    const exhaustive = boundSearch(index, 'exhaustive');
    for (let q = 0; q < 5; q++) {
      const vector = randomVectors(random, 1, { vocabulary: 200, terms: 25, maxWeight: 2 })[0]!;
      const query = queryTerms(lookup, vector.vector, index.quantization);
      for (const k of [1, AUTO_BMP_MAX_K, AUTO_BMP_MAX_K + 1, 500]) {
        const a = auto(query, { k });
        const e = exhaustive(query, { k });
        expect(Array.from(a.ids)).toEqual(Array.from(e.ids));
        expect(Array.from(a.scores)).toEqual(Array.from(e.scores));
      }
    }
  });

  it('runs bmp up to top 200, or one per 1,000 passages on larger indexes', () => {
    expect(autoBmpMaxK(800)).toBe(AUTO_BMP_MAX_K);
    expect(autoBmpMaxK(100_000)).toBe(200);
    expect(autoBmpMaxK(1_000_000)).toBe(1000);
  });
});
