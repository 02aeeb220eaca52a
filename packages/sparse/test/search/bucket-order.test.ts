import { describe, expect, it } from 'vitest';
import { bucketScratch, visitByBound } from '../../src/search/bmp/bucket-order.js';
import { seeded } from '../helpers/random.js';

/** Visits with a threshold that rises as blocks are visited (as a top k's k-th score does). */
function run(bounds: Int32Array, firstTarget: number, rise: (visited: number[]) => number) {
  const max = bounds.reduce((a, b) => Math.max(a, b), 0);
  const visited: number[] = [];
  let threshold = -Infinity;
  visitByBound(
    bounds,
    bounds.length,
    max,
    firstTarget,
    () => threshold,
    (block) => {
      visited.push(block);
      // A top k's threshold never falls.
      threshold = Math.max(threshold, rise(visited));
    },
    bucketScratch(bounds.length),
  );
  return { visited, threshold };
}

describe('visitByBound (blocks by bucket, highest first)', () => {
  it('visits every block at or above the final threshold, each once, none with bound 0', () => {
    const random = seeded(31);
    for (const size of [1, 7, 64, 1000, 5000]) {
      for (const spread of [3, 1000, 2 ** 30]) {
        const bounds = Int32Array.from({ length: size }, () =>
          random() < 0.1 ? 0 : Math.floor(random() ** 3 * spread),
        );
        for (const firstTarget of [1, 32, 512]) {
          const { visited, threshold } = run(bounds, firstTarget, (seen) =>
            seen.length < 5 ? -Infinity : bounds[seen[seen.length - 5]!]! * 0.9,
          );
          expect(new Set(visited).size).toBe(visited.length);
          expect(visited.every((b) => bounds[b]! > 0)).toBe(true);
          const seen = new Set(visited);
          const missed = Array.from(bounds.keys()).filter(
            (b) => bounds[b]! > 0 && bounds[b]! >= threshold && !seen.has(b),
          );
          expect(missed).toEqual([]);
        }
      }
    }
  });

  it('visits all positive blocks while the threshold stays -Infinity, and none when all are 0', () => {
    const bounds = Int32Array.from([5, 0, 5, 5, 1, 0, 2 ** 31 - 1, 3]);
    expect(run(bounds, 1, () => -Infinity).visited.sort()).toEqual([0, 2, 3, 4, 6, 7]);
    expect(run(new Int32Array(10), 1, () => -Infinity).visited).toEqual([]);
  });

  it('stops at once when the threshold passes every bound', () => {
    const bounds = Int32Array.from({ length: 100 }, (_, b) => 100 + b);
    expect(run(bounds, 1, () => 1000).visited).toEqual([99]);
  });
});
