/**
 * The block bounds of the fast block-max search, derived from the inverted index when the
 * search is set up (no index file: every index, old ones included, gets them). Passages are
 * grouped in small blocks (4 by default, so a bound sums the maxima of few passages and stays
 * tight: on the bench's million passages, blocks of 4 leave 12 times fewer passages to score
 * than blocks of 8); each term's largest impact per block is stored as one byte, `ceil(max / unit)`
 * (rounded up, so `unit * byte` is never below the true maximum), with `unit` the term's largest
 * impact / 255, or 1 for integer impacts up to 255 (then the byte is exact). Terms present in at
 * least `denseShare` of the blocks get a dense row of one byte per block (summed with SIMD);
 * the others a sparse list of (block, byte).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SparseIndexData } from '../../index/types.js';
import { BoundsKernel } from './bounds-kernel.js';

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

/** The postings' passages as an Int32Array view (read as small integers, not doubles, by V8). */
function passagesOf(index: SparseIndexData): Int32Array | Uint32Array {
  const passages = index.invertedPassages;
  return index.passageIds.length < 2 ** 31
    ? new Int32Array(passages.buffer, passages.byteOffset, passages.length)
    : passages;
}

/** Postings handled between two pauses of `boundMatrixSteps` (some 10-20 ms of CPU). */
const POSTINGS_PER_STEP = 4_000_000;

/** Counts postings and says when a step's worth has been handled since the last pause. */
function stepCounter(index: SparseIndexData): (term: number) => boolean {
  let since = 0;
  return (term) => {
    since += index.invertedOffsets[term + 1]! - index.invertedOffsets[term]!;
    if (since < POSTINGS_PER_STEP) return false;
    since = 0;
    return true;
  };
}

/** Distinct blocks of each term and its largest impact (one pass over the postings). */
function* termStats(index: SparseIndexData, shift: number) {
  const { invertedOffsets, invertedImpacts } = index;
  const passages = passagesOf(index);
  const terms = index.terms.length;
  const blockCounts = new Uint32Array(terms);
  const maxima = new Float64Array(terms);
  const stepDone = stepCounter(index);
  for (let t = 0; t < terms; t++) {
    let last = -1;
    let count = 0;
    let max = 0;
    const end = invertedOffsets[t + 1]!;
    for (let j = invertedOffsets[t]!; j < end; j++) {
      const block = passages[j]! >>> shift;
      if (block !== last) count++;
      last = block;
      const impact = invertedImpacts[j]!;
      if (impact > max) max = impact;
    }
    blockCounts[t] = count;
    maxima[t] = max;
    if (stepDone(t)) yield;
  }
  return { blockCounts, maxima };
}

/**
 * Writes the block bytes of term `t`: into `row[block]` (a dense row), or else into
 * `blocks`/`bytes` from `at` on (a sparse list). Byte i stands for impacts up to `i * unit`.
 */
function writeTerm(
  index: SparseIndexData,
  passages: Int32Array | Uint32Array,
  t: number,
  shift: number,
  unit: number,
  out: { row: Uint8Array | undefined; blocks: Int32Array; bytes: Uint8Array; at: number },
): void {
  const { invertedOffsets, invertedImpacts } = index;
  const { row, blocks, bytes } = out;
  const end = invertedOffsets[t + 1]!;
  let at = out.at;
  let j = invertedOffsets[t]!;
  while (j < end) {
    const block = passages[j]! >>> shift;
    let max = 0;
    for (; j < end && passages[j]! >>> shift === block; j++) {
      const impact = invertedImpacts[j]!;
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
  const steps = boundMatrixSteps(index, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The same bounds, derived a step at a time with the event loop let go between steps, so that a
 * server keeps answering meanwhile (on a million passages the derivation takes seconds).
 *
 * @example const matrix = await boundMatrixInTurns(index);
 */
export async function boundMatrixInTurns(
  index: SparseIndexData,
  options: BoundMatrixOptions = {},
  signal?: AbortSignal,
): Promise<BoundMatrix> {
  const steps = boundMatrixSteps(index, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
    signal?.throwIfAborted(); // the search was closed: its bounds are no longer wanted
  }
}

/** The derivation, pausing (`yield`) after every few million postings. */
function* boundMatrixSteps(
  index: SparseIndexData,
  options: BoundMatrixOptions,
): Generator<void, BoundMatrix, void> {
  const blockSize = options.blockSize ?? BMP_BLOCK_SIZE;
  const blockShift = Math.log2(blockSize);
  if (!Number.isInteger(blockShift) || blockShift < 0 || blockShift > 16)
    throw new RangeError(`the block size must be a power of two up to 65536, got ${blockSize}`);
  const terms = index.terms.length;
  const blocks = Math.ceil(index.passageIds.length / blockSize);
  const { blockCounts, maxima } = yield* termStats(index, blockShift);
  const exactBytes = index.quantization > 0;
  const units = Float64Array.from(maxima, (max) =>
    max === 0 ? 0 : exactBytes && max <= 255 ? 1 : max / 255,
  );
  const denseFrom = denseThreshold(
    blockCounts,
    Math.max(1, Math.ceil((options.denseShare ?? BMP_DENSE_SHARE) * blocks)),
    Math.floor((options.maxDenseBytes ?? MAX_DENSE_BYTES) / (32 * Math.ceil(blocks / 32) || 1)),
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
  const passages = passagesOf(index);
  const stepDone = stepCounter(index);
  for (let t = 0; t < terms; t++) {
    const row =
      denseRow[t]! >= 0 ? kernel.rows.subarray(denseRow[t]! * kernel.rowBytes) : undefined;
    const at = sparseOffsets[t]!;
    writeTerm(index, passages, t, blockShift, units[t]!, {
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
