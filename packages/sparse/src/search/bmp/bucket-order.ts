/**
 * Visits the blocks whose bound reaches a rising threshold, highest bounds first, without
 * sorting them all. Bounds fall into 1,024 buckets (their top bits). A sample (every 64th
 * block) says which top buckets hold about `target` blocks; one pass over the bounds gathers
 * the blocks of those buckets, a counting sort orders them by bucket, and they are visited
 * bucket by bucket. Should the threshold still be below the gathered buckets, the next round
 * gathers the buckets below (8 times the target). The visit stops at the first bucket whose
 * highest possible bound is below the threshold: every block with a bound at or above the
 * threshold has been visited, none below it in a later bucket.
 */

export const BUCKETS = 1024;
/** Every SAMPLE_STRIDE-th block is sampled to choose how far down a round gathers. */
const SAMPLE_STRIDE = 64;

export interface BucketScratch {
  /** Sampled blocks per bucket. */
  sampled: Int32Array;
  /** Gathered blocks per bucket, then where each bucket ends in `order`. */
  counts: Int32Array;
  gathered: Int32Array;
  /** Gathered blocks, bucket by bucket (highest first). */
  order: Int32Array;
}

export function bucketScratch(blocks: number): BucketScratch {
  return {
    sampled: new Int32Array(BUCKETS),
    counts: new Int32Array(BUCKETS),
    gathered: new Int32Array(blocks),
    order: new Int32Array(blocks),
  };
}

/** Gathers the blocks of buckets `[lo, hi)` into `order`, highest bucket first; returns how many. */
function gather(
  bounds: Int32Array,
  blocks: number,
  shift: number,
  range: { lo: number; hi: number },
  s: BucketScratch,
): number {
  const { counts, gathered, order } = s;
  const low = range.lo * 2 ** shift;
  const high = range.hi * 2 ** shift;
  let n = 0;
  for (let b = 0; b < blocks; b++) {
    const bound = bounds[b]!;
    if (bound >= low && bound < high) gathered[n++] = b;
  }
  counts.fill(0, range.lo, range.hi);
  for (let i = 0; i < n; i++) counts[bounds[gathered[i]!]! >>> shift]!++;
  let at = 0;
  for (let bucket = range.hi - 1; bucket >= range.lo; bucket--)
    counts[bucket] = at += counts[bucket]!;
  for (let i = n - 1; i >= 0; i--) order[--counts[bounds[gathered[i]!]! >>> shift]!] = gathered[i]!;
  return n;
}

/**
 * Calls `visit(block)` for every block whose bound is at or above `threshold()` (re-read after
 * each visit), highest buckets first; `firstTarget` is about how many blocks the first round
 * gathers. Returns the bounds read (passes over the bounds times the blocks, and the sample).
 *
 * @example visitByBound(bounds, blocks, max, 512, () => top.threshold * scale, scoreBlock, s)
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
  const { sampled, order } = scratch;
  const shift = Math.max(0, (max === 0 ? 0 : 32 - Math.clz32(max)) - Math.log2(BUCKETS));
  const highest = (bucket: number) => (bucket + 1) * 2 ** shift - 1;
  sampled.fill(0);
  for (let b = 0; b < blocks; b += SAMPLE_STRIDE) sampled[bounds[b]! >>> shift]!++;
  let reads = Math.ceil(blocks / SAMPLE_STRIDE);
  let hi = (max >>> shift) + 1;
  for (let target = firstTarget; hi > 0; target *= 8) {
    let lo = hi;
    for (let n = 0; lo > 0 && n * SAMPLE_STRIDE < target && highest(lo - 1) >= threshold();)
      n += sampled[--lo]!;
    if (lo === hi) break;
    const count = gather(bounds, blocks, shift, { lo, hi }, scratch);
    reads += blocks;
    for (let at = 0; at < count; at++) {
      const block = order[at]!;
      const bound = bounds[block]!;
      if (highest(bound >>> shift) < threshold()) return reads;
      // A bound of 0 (no query term in the block) is never visited, even before the top k fills.
      if (bound !== 0 && bound >= threshold()) visit(block);
    }
    hi = lo;
  }
  return reads;
}
