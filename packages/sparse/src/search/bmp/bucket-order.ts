/**
 * Visits the blocks whose bound reaches a rising threshold, highest bounds first, without
 * sorting them all: one pass counts the bounds into 1,024 buckets (the top bits of the bound);
 * then, round after round, the next buckets down that hold about `target` blocks (8 times more
 * each round) are gathered in one pass over the bounds and visited bucket by bucket. The visit
 * stops at the first bucket whose highest possible bound is below the threshold: every block
 * with a bound at or above the threshold has been visited, none below it in a later bucket.
 */

export const BUCKETS = 1024;

export interface BucketScratch {
  counts: Int32Array;
  /** Four sets of counts (see countBuckets). */
  lanes: Int32Array;
  ends: Int32Array;
  /** Gathered block numbers, bucket by bucket (highest first). */
  order: Int32Array;
}

export function bucketScratch(blocks: number): BucketScratch {
  return {
    counts: new Int32Array(BUCKETS),
    lanes: new Int32Array(4 * BUCKETS),
    ends: new Int32Array(BUCKETS),
    order: new Int32Array(blocks),
  };
}

/**
 * Counts the bounds per bucket; returns the bucket shift. Four blocks in a row often
 * fall in the same bucket: four sets of counts (merged at the end) keep their increments from
 * waiting on each other.
 */
function countBuckets(bounds: Int32Array, blocks: number, max: number, s: BucketScratch) {
  const bits = max === 0 ? 0 : 32 - Math.clz32(max);
  const shift = Math.max(0, bits - Math.log2(BUCKETS));
  const { counts, lanes } = s;
  lanes.fill(0);
  let b = 0;
  for (; b + 3 < blocks; b += 4) {
    lanes[bounds[b]! >>> shift]!++;
    lanes[BUCKETS + (bounds[b + 1]! >>> shift)]!++;
    lanes[2 * BUCKETS + (bounds[b + 2]! >>> shift)]!++;
    lanes[3 * BUCKETS + (bounds[b + 3]! >>> shift)]!++;
  }
  for (; b < blocks; b++) lanes[bounds[b]! >>> shift]!++;
  for (let i = 0; i < BUCKETS; i++)
    counts[i] = lanes[i]! + lanes[BUCKETS + i]! + lanes[2 * BUCKETS + i]! + lanes[3 * BUCKETS + i]!;
  return shift;
}

/** Gathers the blocks of buckets `[lo, hi)` into `order`, highest bucket first. */
function gather(
  bounds: Int32Array,
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
    if (bound >= low && bound < high) order[--ends[bound >>> shift]!] = b;
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
  bounds: Int32Array,
  blocks: number,
  max: number,
  firstTarget: number,
  threshold: () => number,
  visit: (block: number) => void,
  scratch: BucketScratch,
): number {
  const { counts, order } = scratch;
  const shift = countBuckets(bounds, blocks, max, scratch);
  const highest = (bucket: number) => (bucket + 1) * 2 ** shift - 1;
  let passes = 1;
  let hi = (max >>> shift) + 1;
  for (let target = firstTarget; hi > 0; target *= 8) {
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
        // A bound of 0 (no query term in the block) is never visited, even before the top k fills.
        if (bounds[block]! !== 0 && bounds[block]! >= threshold()) visit(block);
      }
    }
    hi = lo;
  }
  return passes * blocks;
}
