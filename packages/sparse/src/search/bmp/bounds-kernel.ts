/**
 * The WebAssembly side of the fast block-max search: one shared linear memory holding the dense
 * block-max rows (one u8 per block per frequent term, written once at start-up), the bound of
 * every block (u32, rewritten per query), and a small area for the query's dense terms (row
 * offsets and multipliers); `sum` (block-bounds.wat) adds up the rows with SIMD, over all the
 * blocks or a range of them (helper threads sum the other ranges over the same memory:
 * split-bounds.ts).
 */
import { instantiate, sharedMemory, type SharedMemory } from 'irserve/wasm';
import { blockBoundsWasm } from './block-bounds-wasm.js';

interface BoundsExports {
  sum(rows: number, mults: number, terms: number, first: number, end: number, out: number): number;
}

/** What a thread needs to sum a range of a query's groups over the kernel's memory. */
export interface BoundsLayout {
  memory: SharedMemory;
  /** Byte offsets of the query's row offsets (i32 per dense term) and of the bounds. */
  rowOffsetsAt: number;
  boundsAt: number;
}

/** A kernel instance over `layout.memory`, summing groups `[first, end)` of `terms` dense terms. */
export function boundsSummer(
  layout: BoundsLayout,
): (terms: number, first: number, end: number) => number {
  const kernel = instantiate<BoundsExports>(blockBoundsWasm, layout.memory);
  // Multipliers start at byte 0 of the memory.
  return (terms, first, end) =>
    kernel.sum(layout.rowOffsetsAt, 0, terms, first, end, layout.boundsAt) >>> 0;
}
/** Blocks per step of the kernel: two 16-lane u8 vectors. */
export const GROUP_BLOCKS = 32;
/** wasm32 memories stop at 4 GiB. */
const MAX_BYTES = 2 ** 32;

export class BoundsKernel {
  /** Blocks rounded up to whole steps of 32. */
  readonly groups: number;
  /** One u8 row of `groups * 32` bytes per dense term, row r at `rows.subarray(r * rowBytes)`. */
  readonly rows: Uint8Array;
  readonly rowBytes: number;
  /**
   * The bound of every block after `sum` (then the caller's sparse terms add to it). Signed
   * view: the caller keeps bounds below 2^31, so JavaScript reads them as small integers.
   */
  readonly bounds: Int32Array;
  readonly layout: BoundsLayout;
  readonly #sum: (terms: number, first: number, end: number) => number;
  readonly #rowOffsets: Int32Array;
  readonly #mults: Uint16Array;
  readonly #rowsAt: number;
  #terms = 0;

  /** Room for `denseRows` rows over `blocks` blocks. */
  constructor(blocks: number, denseRows: number) {
    this.groups = Math.ceil(blocks / GROUP_BLOCKS);
    this.rowBytes = this.groups * GROUP_BLOCKS;
    const multsBytes = 16 * denseRows;
    const offsetsAt = multsBytes;
    const boundsAt = offsetsAt + 16 * Math.ceil(denseRows / 4);
    this.#rowsAt = boundsAt + 4 * this.rowBytes;
    const bytes = this.#rowsAt + denseRows * this.rowBytes;
    if (bytes > MAX_BYTES)
      throw new RangeError(
        `the dense block-max rows need ${bytes} bytes, more than a WebAssembly memory holds`,
      );
    const memory = sharedMemory(bytes);
    this.layout = { memory, rowOffsetsAt: offsetsAt, boundsAt };
    this.#sum = boundsSummer(this.layout);
    this.#mults = new Uint16Array(memory.buffer, 0, 8 * denseRows);
    this.#rowOffsets = new Int32Array(memory.buffer, offsetsAt, denseRows);
    this.bounds = new Int32Array(memory.buffer, boundsAt, this.rowBytes);
    this.rows = new Uint8Array(memory.buffer, this.#rowsAt, denseRows * this.rowBytes);
  }

  /** Starts a query: no dense term yet. */
  reset(): void {
    this.#terms = 0;
  }

  /** Adds dense row `row` with multiplier `mult` (at most 65,535) to the query. */
  addRow(row: number, mult: number): void {
    this.#rowOffsets[this.#terms] = this.#rowsAt + row * this.rowBytes;
    this.#mults.fill(mult, 8 * this.#terms, 8 * this.#terms + 8);
    this.#terms++;
  }

  /** Dense terms of the current query. */
  get terms(): number {
    return this.#terms;
  }

  /**
   * Writes the dense bound of the blocks of groups `[first, end)` (32 blocks each; all by
   * default) into `bounds`; returns the largest.
   */
  sum(first = 0, end = this.groups): number {
    return this.#sum(this.#terms, first, end);
  }
}
