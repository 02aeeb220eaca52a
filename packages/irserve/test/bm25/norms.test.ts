import { describe, expect, it } from 'vitest';
import { lengthToNorm, normToLength } from '../../src/engines/bm25/lucene-norms.js';

describe('Lucene length norms (SmallFloat.intToByte4 / byte4ToInt)', () => {
  it('stores lengths below 24 exactly', () => {
    for (let n = 0; n < 24; n++) expect(normToLength(lengthToNorm(n))).toBe(n);
  });

  it('matches values of Lucene BM25Similarity.LENGTH_TABLE', () => {
    // byte4ToInt for a few bytes, computed from Lucene's SmallFloat definitions.
    expect(normToLength(24)).toBe(24);
    expect(normToLength(40)).toBe(40);
    expect(normToLength(41)).toBe(42);
    expect(lengthToNorm(1000)).toBe(87);
    expect(normToLength(87)).toBe(984);
    expect(normToLength(255)).toBe(2013265944);
  });

  it('rounds down and is monotone', () => {
    let previous = -1;
    for (let n = 0; n < 100_000; n += 7) {
      const decoded = normToLength(lengthToNorm(n));
      expect(decoded).toBeLessThanOrEqual(n);
      expect(decoded).toBeGreaterThanOrEqual(previous);
      previous = decoded;
    }
  });
});
