/**
 * The small shared int32 area through which the search thread hands a range of a query's block
 * groups to a helper thread (split-bounds.ts, bounds-worker.ts). A task goes `idle` → `posted`
 * (search thread) → `running` (helper, by compare-exchange) → `done` (helper) → `idle` (search
 * thread, once it read the result); a posted task the helper has not taken in time is taken back
 * (`posted` → `idle`, also by compare-exchange), so exactly one thread sums each range.
 */

/** Where each field sits in the area. */
export const Control = {
  state: 0,
  /** 1 once the helper has its kernel. */
  ready: 1,
  terms: 2,
  first: 3,
  end: 4,
  /** The largest bound of the range (bounds stay below 2^31). */
  max: 5,
} as const;

export const CONTROL_INTS = 6;

export const BoundsState = { idle: 0, posted: 1, running: 2, done: 3, stop: 4 } as const;
