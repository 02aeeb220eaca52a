import { describe, expect, it } from 'vitest';
import { IMPACT_SLICE, impactOrder } from '../../src/index/impact-order.js';
import { buildFromVectors, randomVectors, seeded, withImpactOrder } from '../helpers/random.js';

/** Each term's (passage, impact) pairs, sorted, from lists at `offsets`. */
function pairsOf(offsets: Uint32Array, passages: Uint32Array, impacts: ArrayLike<number>) {
  return Array.from({ length: offsets.length - 1 }, (_, t) =>
    Array.from({ length: offsets[t + 1]! - offsets[t]! }, (_, i) => [
      passages[offsets[t]! + i]!,
      impacts[offsets[t]! + i]!,
    ]).sort((a, b) => a[0]! - b[0]!),
  );
}

describe('impact-ordered postings', () => {
  for (const quantization of [50, 0]) {
    it(`hold each term's postings, heaviest first, passages ascending among ties (quantization ${quantization})`, () => {
      const vectors = randomVectors(seeded(4), 500, { vocabulary: 80, terms: 30, maxWeight: 3 });
      const index = withImpactOrder(
        buildFromVectors(vectors, { quantization, impactSlice: IMPACT_SLICE }),
      );
      const { invertedOffsets: offsets, impactPassages, impactImpacts } = index;
      expect(pairsOf(offsets, impactPassages, impactImpacts)).toEqual(
        pairsOf(offsets, index.invertedPassages, index.invertedImpacts),
      );
      for (let t = 0; t + 1 < offsets.length; t++)
        for (let j = offsets[t]! + 1; j < offsets[t + 1]!; j++) {
          const before = impactImpacts[j - 1]!;
          expect(before).toBeGreaterThanOrEqual(impactImpacts[j]!);
          if (before === impactImpacts[j])
            expect(impactPassages[j - 1]!).toBeLessThan(impactPassages[j]!);
        }
    });
  }

  it('sorts a term with a few postings but a huge impact range, and an empty term', () => {
    const offsets = Uint32Array.from([0, 3, 3, 5]);
    const passages = Uint32Array.from([1, 4, 9, 2, 3]);
    const impacts = Uint16Array.from([7, 65_535, 7, 1, 1]);
    const sorted = impactOrder({ offsets, passages, impacts });
    expect(Array.from(sorted.passages)).toEqual([4, 1, 9, 2, 3]);
    expect(Array.from(sorted.impacts)).toEqual([65_535, 7, 7, 1, 1]);
  });

  it('sorts inside each slice of passages, slices in passage order', () => {
    const random = seeded(8);
    const count = 200;
    const offsets = Uint32Array.from([0, count]);
    const passages = Uint32Array.from({ length: count }, (_, i) => i * 3);
    const impacts = Uint16Array.from({ length: count }, () => 1 + Math.floor(random() * 20));
    const sorted = impactOrder({ offsets, passages, impacts }, 50);
    for (let j = 1; j < count; j++) {
      const [a, b] = [sorted.passages[j - 1]!, sorted.passages[j]!];
      if (Math.floor(a / 50) !== Math.floor(b / 50)) {
        expect(Math.floor(a / 50)).toBeLessThan(Math.floor(b / 50));
        continue;
      }
      expect(sorted.impacts[j - 1]!).toBeGreaterThanOrEqual(sorted.impacts[j]!);
      if (sorted.impacts[j - 1] === sorted.impacts[j]) expect(a).toBeLessThan(b);
    }
    expect([...sorted.passages].sort((x, y) => x - y)).toEqual([...passages]);
  });
});
