/**
 * The small shared int32 area through which the search thread and its helper threads share a
 * query's block groups (split-bounds.ts, bounds-worker.ts). The groups are cut into a fixed
 * number of chunks; each query gets a new generation (`gen`, waking the helpers), and every
 * thread, the search thread included, takes the next chunk by compare-exchange on `ticket`
 * (generation in the high 16 bits, next chunk in the low 16), so each chunk is summed exactly
 * once, by whichever thread is free. A thread counts the chunks it finished in `finished` once
 * its sums are written; the search thread returns when all are. The chunk count never changes,
 * so a helper that wakes late finds its generation's chunks all taken and sums nothing.
 */

/** Where each field sits in the area; helper `h` (from 0) has `helper(h)` and the one after. */
export const Control = {
  /** The query's generation (15 bits), or `STOP`. */
  gen: 0,
  ticket: 1,
  finished: 2,
  /** Dense terms of the query. */
  terms: 3,
} as const;

const HELPER_AT = 4;

/** Helper `h`'s two fields: 1 once it has its kernel, then the largest bound it summed. */
export function helperFields(h: number): { ready: number; max: number } {
  return { ready: HELPER_AT + 2 * h, max: HELPER_AT + 2 * h + 1 };
}

/** Int32 fields of an area for `helpers` helpers. */
export function controlInts(helpers: number): number {
  return HELPER_AT + 2 * helpers;
}

/** A helper's `max` when its kernel threw (bounds are never negative). */
export const FAILED = -1;

/** `gen` once the helpers are to exit. */
export const STOP = -1;

/**
 * Takes the next chunk of generation `gen` (below `chunks`); returns its number, or -1 when
 * they are all taken or the generation is over.
 */
export function takeChunk(control: Int32Array, gen: number, chunks: number): number {
  for (;;) {
    const ticket = Atomics.load(control, Control.ticket);
    const chunk = ticket & 0xffff;
    if (ticket >>> 16 !== gen || chunk >= chunks) return -1;
    if (Atomics.compareExchange(control, Control.ticket, ticket, ticket + 1) === ticket)
      return chunk;
  }
}

/** Groups `[first, end)` of chunk `chunk` of `chunks` over `groups` groups. */
export function chunkRange(chunk: number, chunks: number, groups: number): [number, number] {
  return [Math.floor((groups * chunk) / chunks), Math.floor((groups * (chunk + 1)) / chunks)];
}
