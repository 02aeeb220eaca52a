/**
 * Visits the blocks whose bound reaches a rising threshold, highest bounds first, without
 * sorting them all: one pass counts the bounds into 1,024 buckets (the top bits of the bound);
 * then, round after round, the next buckets down that hold about `target` blocks (4 times more
 * each round) are gathered in one pass over the bounds and visited bucket by bucket. The visit
 * stops at the first bucket whose highest possible bound is below the threshold: every block
 * with a bound at or above the threshold has been visited, none below it in a later bucket.
 */

export const BUCKETS = 1024;

export interface BucketScratch {
  counts: Uint32Array;
  ends: Uint32Array;
  /** Gathered block numbers, bucket by bucket (highest first). */
  order: Uint32Array;
}

export function bucketScratch(blocks: number): BucketScratch {
  return {
    counts: new Uint32Array(BUCKETS),
    ends: new Uint32Array(BUCKETS),
    order: new Uint32Array(blocks),
  };
}

/** Counts the positive bounds per bucket; returns the bucket shift. */
function countBuckets(bounds: Uint32Array, blocks: number, max: number, counts: Uint32Array) {
  const bits = max === 0 ? 0 : 32 - Math.clz32(max);
  const shift = Math.max(0, bits - Math.log2(BUCKETS));
  counts.fill(0);
  for (let b = 0; b < blocks; b++) {
    const bound = bounds[b]!;
    if (bound !== 0) counts[bound >>> shift]!++;
  }
  return shift;
}

/** Gathers the positive bounds of buckets `[lo, hi)` into `order`, highest bucket first. */
function gather(
  bounds: Uint32Array,
  blocks: number,
  shift: number,
  lo: number,
  hi: number,
  s: BucketScratch,
) {
  const { counts, ends, order } = s;
  let at = 0;
  for (let bucket = hi - 1; bucket >= lo; bucket--) ends[bucket] = at += counts[bucket]!;
  const low = lo * 2 ** shift;
  const high = hi * 2 ** shift;
  for (let b = 0; b < blocks; b++) {
    const bound = bounds[b]!;
    if (bound >= low && bound < high && bound !== 0) order[--ends[bound >>> shift]!] = b;
  }
}

/**
 * Calls `visit(block)` for every block whose bound is at or above `threshold()` (re-read after
 * each visit), highest buckets first; `firstTarget` is how many blocks the first round gathers.
 * Returns the bound entries read (passes over the bounds times the blocks).
 *
 * @example visitByBound(bounds, blocks, max, 64, () => top.threshold * scale, scoreBlock, s)
 */
export function visitByBound(
  bounds: Uint32Array,
  blocks: number,
  max: number,
  firstTarget: number,
  threshold: () => number,
  visit: (block: number) => void,
  scratch: BucketScratch,
): number {
  const { counts, order } = scratch;
  const shift = countBuckets(bounds, blocks, max, counts);
  const highest = (bucket: number) => (bucket + 1) * 2 ** shift - 1;
  let passes = 1;
  let hi = (max >>> shift) + 1;
  for (let target = firstTarget; hi > 0; target *= 4) {
    let lo = hi;
    for (let n = 0; lo > 0 && n < target && highest(lo - 1) >= threshold();) n += counts[--lo]!;
    if (lo === hi) break;
    gather(bounds, blocks, shift, lo, hi, scratch);
    passes++;
    let at = 0;
    for (let bucket = hi - 1; bucket >= lo; bucket--) {
      if (highest(bucket) < threshold()) return passes * blocks;
      for (const end = at + counts[bucket]!; at < end; at++) {
        const block = order[at]!;
        if (bounds[block]! >= threshold()) visit(block);
      }
    }
    hi = lo;
  }
  return passes * blocks;
}
