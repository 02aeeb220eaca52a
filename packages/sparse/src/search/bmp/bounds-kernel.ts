/**
 * The WebAssembly side of the fast block-max search: one linear memory holding the dense
 * block-max rows (one u8 per block per frequent term, written once at start-up), the bound of
 * every block (u32, rewritten per query), and a small area for the query's dense terms (row
 * offsets and multipliers); `sum` (block-bounds.wat) adds up the rows with SIMD.
 */
import { blockBoundsWasm } from './block-bounds-wasm.js';

interface BoundsExports {
  sum(rows: number, mults: number, terms: number, groups: number, out: number): number;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

const PAGE = 65536;
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
  readonly #kernel: BoundsExports;
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
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    const memory = new wasm.Memory({ initial: pages, maximum: pages });
    this.#kernel = new wasm.Instance(new wasm.Module(blockBoundsWasm), { env: { memory } })
      .exports as BoundsExports;
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

  /** Writes every block's dense bound into `bounds`; returns the largest. */
  sum(): number {
    const boundsAt = this.bounds.byteOffset;
    return (
      this.#kernel.sum(this.#rowOffsets.byteOffset, 0, this.#terms, this.groups, boundsAt) >>> 0
    );
  }
}
