/**
 * The block bounds of the fast block-max search, derived from the inverted index when the
 * search is set up (no index file: every index, old ones included, gets them), from the lists
 * in memory or read term by term from the index files (`ListSource`). Passages are
 * grouped in small blocks (4 by default, so a bound sums the maxima of few passages and stays
 * tight: on the bench's million passages, blocks of 4 leave 12 times fewer passages to score
 * than blocks of 8); each term's largest impact per block is stored as one byte, `ceil(max / unit)`
 * (rounded up, so `unit * byte` is never below the true maximum), with `unit` the term's largest
 * impact / 255, or 1 for integer impacts up to 255 (then the byte is exact). Terms present in at
 * least `denseShare` of the blocks get a dense row of one byte per block (summed with SIMD);
 * the others a sparse list of (block, byte).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Impacts, SparseIndexData } from '../../index/types.js';
import { BoundsKernel } from './bounds-kernel.js';
import { memoryLists, type ListSource } from './list-source.js';

export interface BoundMatrixOptions {
  /** Passages per block, a power of two (default 4). */
  blockSize?: number;
  /** Share of the blocks from which a term gets a dense row (default 1/16). */
  denseShare?: number;
  /** Most bytes of dense rows (default MAX_DENSE_BYTES). */
  maxDenseBytes?: number;
}

export const BMP_BLOCK_SIZE = 4;
export const BMP_DENSE_SHARE = 1 / 16;
/**
 * The dense rows live in one WebAssembly memory (4 GiB at most): on a very large index only the
 * terms in the most blocks get one, so that the rows stay under 2 GiB (the rest go sparse).
 */
export const MAX_DENSE_BYTES = 2 ** 31;

export interface BoundMatrix {
  /** log2 of the passages per block. */
  blockShift: number;
  blocks: number;
  /** Per term: what one unit of its bytes is worth (0: the term has no postings). */
  units: Float64Array;
  /** Per term: its dense row, or -1 (sparse list). */
  denseRow: Int32Array;
  denseTerms: number;
  /** Dense rows and per-query bounds. */
  kernel: BoundsKernel;
  /** Sparse terms' blocks (ascending) and bytes at `[sparseOffsets[t], sparseOffsets[t + 1])`. */
  sparseOffsets: Uint32Array;
  sparseBlocks: Int32Array;
  sparseMax: Uint8Array;
}

/** Postings handled between two pauses of `boundMatrixSteps` (some 10-20 ms of CPU). */
const POSTINGS_PER_STEP = 4_000_000;

/** Counts postings and says when a step's worth has been handled since the last pause. */
function stepCounter(lists: ListSource): (term: number) => boolean {
  let since = 0;
  return (term) => {
    since += lists.length(term);
    if (since < POSTINGS_PER_STEP) return false;
    since = 0;
    return true;
  };
}

/** Distinct blocks of each term and its largest impact (one pass over the postings). */
function* termStats(lists: ListSource, shift: number) {
  const blockCounts = new Uint32Array(lists.terms);
  const maxima = new Float64Array(lists.terms);
  const stepDone = stepCounter(lists);
  for (let t = 0; t < lists.terms; t++) {
    const { passages, impacts, length } = lists.list(t);
    let last = -1;
    let count = 0;
    let max = 0;
    for (let j = 0; j < length; j++) {
      const block = passages[j]! >>> shift;
      if (block !== last) count++;
      last = block;
      const impact = impacts[j]!;
      if (impact > max) max = impact;
    }
    blockCounts[t] = count;
    maxima[t] = max;
    if (stepDone(t)) yield;
  }
  return { blockCounts, maxima };
}

/**
 * Writes the block bytes of one term's list: into `row[block]` (a dense row), or else into
 * `blocks`/`bytes` from `at` on (a sparse list). Byte i stands for impacts up to `i * unit`.
 */
function writeTerm(
  list: { passages: Int32Array | Uint32Array; impacts: Impacts; length: number },
  shift: number,
  unit: number,
  out: { row: Uint8Array | undefined; blocks: Int32Array; bytes: Uint8Array; at: number },
): void {
  const { passages, impacts, length: end } = list;
  const { row, blocks, bytes } = out;
  let at = out.at;
  let j = 0;
  while (j < end) {
    const block = passages[j]! >>> shift;
    let max = 0;
    for (; j < end && passages[j]! >>> shift === block; j++) {
      const impact = impacts[j]!;
      if (impact > max) max = impact;
    }
    const byte = unit === 1 ? max : toByte(max, unit);
    if (row !== undefined) row[block] = byte;
    else {
      blocks[at] = block;
      bytes[at++] = byte;
    }
  }
}

/**
 * The fewest blocks a term needs for a dense row: `wanted`, raised until at most `maxRows`
 * terms reach it.
 */
function denseThreshold(blockCounts: Uint32Array, wanted: number, maxRows: number): number {
  let rows = 0;
  for (const count of blockCounts) if (count >= wanted) rows++;
  if (rows <= maxRows) return wanted;
  if (maxRows <= 0) return Infinity;
  const sorted = Uint32Array.from(blockCounts).sort().reverse();
  // The maxRows-th largest count, plus one when the next term ties with it (ties all go sparse).
  const cut = sorted[maxRows - 1]!;
  return sorted[maxRows] === cut ? cut + 1 : cut;
}

/** The byte of a block maximum: rounded up, at least 1, at most 255 (unit 1: integers up to 255, exact). */
function toByte(max: number, unit: number): number {
  return Math.min(255, Math.max(1, Math.ceil(max / unit)));
}

/**
 * Derives the bounds of `index` (about one pass over its postings, twice).
 *
 * @example const matrix = boundMatrix(index); matrix.denseTerms
 */
export function boundMatrix(index: SparseIndexData, options: BoundMatrixOptions = {}): BoundMatrix {
  const steps = boundMatrixSteps(memoryLists(index), options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The same bounds, derived a step at a time with the event loop let go between steps, so that a
 * server keeps answering meanwhile (on a million passages the derivation takes seconds).
 *
 * @example const matrix = await boundMatrixInTurns(memoryLists(index));
 */
export async function boundMatrixInTurns(
  lists: ListSource,
  options: BoundMatrixOptions = {},
  signal?: AbortSignal,
): Promise<BoundMatrix> {
  const steps = boundMatrixSteps(lists, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
    signal?.throwIfAborted(); // the search was closed: its bounds are no longer wanted
  }
}

/** The derivation, pausing (`yield`) after every few million postings. */
function* boundMatrixSteps(
  lists: ListSource,
  options: BoundMatrixOptions,
): Generator<void, BoundMatrix, void> {
  const { blockShift, blocks } = blockLayout(lists.passages, options);
  const terms = lists.terms;
  const { blockCounts, maxima } = yield* termStats(lists, blockShift);
  const exactBytes = lists.quantization > 0;
  const units = Float64Array.from(maxima, (max) =>
    max === 0 ? 0 : exactBytes && max <= 255 ? 1 : max / 255,
  );
  const denseFrom = denseThreshold(
    blockCounts,
    wantedDenseBlocks(blocks, options),
    maxDenseRows(blocks, options),
  );
  const denseRow = new Int32Array(terms).fill(-1);
  const sparseOffsets = new Uint32Array(terms + 1);
  let denseTerms = 0;
  for (let t = 0; t < terms; t++) {
    if (blockCounts[t]! >= denseFrom) denseRow[t] = denseTerms++;
    sparseOffsets[t + 1] = sparseOffsets[t]! + (denseRow[t]! >= 0 ? 0 : blockCounts[t]!);
  }
  const kernel = new BoundsKernel(blocks, denseTerms);
  const sparseBlocks = new Int32Array(sparseOffsets[terms]!);
  const sparseMax = new Uint8Array(sparseOffsets[terms]!);
  const stepDone = stepCounter(lists);
  for (let t = 0; t < terms; t++) {
    const row =
      denseRow[t]! >= 0 ? kernel.rows.subarray(denseRow[t]! * kernel.rowBytes) : undefined;
    const at = sparseOffsets[t]!;
    writeTerm(lists.list(t), blockShift, units[t]!, {
      row,
      blocks: sparseBlocks,
      bytes: sparseMax,
      at,
    });
    if (stepDone(t)) yield;
  }
  return {
    blockShift,
    blocks,
    units,
    denseRow,
    denseTerms,
    kernel,
    sparseOffsets,
    sparseBlocks,
    sparseMax,
  };
}

/** Passages per block, its log2 and the blocks of `passages` passages; a bad size throws. */
function blockLayout(passages: number, options: BoundMatrixOptions) {
  const blockSize = options.blockSize ?? BMP_BLOCK_SIZE;
  const blockShift = Math.log2(blockSize);
  if (!Number.isInteger(blockShift) || blockShift < 0 || blockShift > 16)
    throw new RangeError(`the block size must be a power of two up to 65536, got ${blockSize}`);
  return { blockSize, blockShift, blocks: Math.ceil(passages / blockSize) };
}

/** The blocks a term needs for a dense row, unless there are too many such terms. */
function wantedDenseBlocks(blocks: number, options: BoundMatrixOptions): number {
  return Math.max(1, Math.ceil((options.denseShare ?? BMP_DENSE_SHARE) * blocks));
}

/** The most dense rows the kernel's memory takes. */
function maxDenseRows(blocks: number, options: BoundMatrixOptions): number {
  return Math.floor(
    (options.maxDenseBytes ?? MAX_DENSE_BYTES) / (32 * Math.ceil(blocks / 32) || 1),
  );
}

/**
 * Bytes a search holds per term (units, row numbers, offsets, query weights and multipliers,
 * the derivation's counts), per block (bounds, the bucket order's two arrays), and besides
 * (the WebAssembly memory is whole pages of 64 KiB).
 */
const BYTES_PER_TERM = 72;
const BYTES_PER_BLOCK = 12;
const FIXED_BYTES = 65_536 + 8 * 1024;

/**
 * Bytes the bounds and a searcher's scratch may take at most, known from the list lengths
 * alone (before reading the lists): a term takes a dense row of one byte per block or 5 bytes
 * per block it occurs in, and occurs in at most `min(length, blocks)` blocks and at least
 * `length / blockSize`. What `boundMatrixBytes` gives once derived is never more.
 *
 * @example boundMatrixReserve(head.passages, terms, (t) => offsets[t + 1] - offsets[t])
 */
export function boundMatrixReserve(
  passages: number,
  terms: number,
  length: (term: number) => number,
  options: BoundMatrixOptions = {},
): number {
  const { blockSize, blocks } = blockLayout(passages, options);
  const rowBytes = 32 * Math.ceil(blocks / 32);
  const wanted = wantedDenseBlocks(blocks, options);
  let mayBeDense = 0;
  for (let t = 0; t < terms; t++) if (Math.min(length(t), blocks) >= wanted) mayBeDense++;
  const capped = mayBeDense > maxDenseRows(blocks, options);
  let bytes = FIXED_BYTES + BYTES_PER_TERM * terms + BYTES_PER_BLOCK * rowBytes;
  for (let t = 0; t < terms; t++) {
    const most = Math.min(length(t), blocks);
    const surelyDense = !capped && Math.ceil(length(t) / blockSize) >= wanted;
    if (surelyDense) bytes += rowBytes;
    else bytes += most >= wanted ? Math.max(rowBytes, 5 * most) : 5 * most;
  }
  return bytes;
}

/**
 * Bytes the derived bounds hold, with a searcher's scratch (what `boundMatrixReserve` bounds).
 *
 * @example boundMatrixBytes(matrix, index.terms.length)
 */
export function boundMatrixBytes(matrix: BoundMatrix, terms: number): number {
  return (
    FIXED_BYTES +
    BYTES_PER_TERM * terms +
    BYTES_PER_BLOCK * matrix.kernel.rowBytes +
    matrix.denseTerms * matrix.kernel.rowBytes +
    5 * matrix.sparseBlocks.length
  );
}
