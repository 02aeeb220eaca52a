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
import type { SparseIndexData } from '../../index/types.js';
import { BoundsKernel } from './bounds-kernel.js';

export interface BoundMatrixOptions {
  /** Passages per block, a power of two (default 4). */
  blockSize?: number;
  /** Share of the blocks from which a term gets a dense row (default 1/16). */
  denseShare?: number;
}

export const BMP_BLOCK_SIZE = 4;
export const BMP_DENSE_SHARE = 1 / 16;

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

/** Distinct blocks of each term and its largest impact (one pass over the postings). */
function termStats(index: SparseIndexData, shift: number) {
  const { invertedOffsets, invertedPassages, invertedImpacts } = index;
  const terms = index.terms.length;
  const blockCounts = new Uint32Array(terms);
  const maxima = new Float64Array(terms);
  for (let t = 0; t < terms; t++) {
    let last = -1;
    let count = 0;
    let max = 0;
    for (let j = invertedOffsets[t]!; j < invertedOffsets[t + 1]!; j++) {
      const block = invertedPassages[j]! >>> shift;
      if (block !== last) count++;
      last = block;
      if (invertedImpacts[j]! > max) max = invertedImpacts[j]!;
    }
    blockCounts[t] = count;
    maxima[t] = max;
  }
  return { blockCounts, maxima };
}

/** Calls `emit(block, max)` for every block of term `t`, in block order. */
function eachBlockMax(
  index: SparseIndexData,
  t: number,
  shift: number,
  emit: (block: number, max: number) => void,
): void {
  const { invertedOffsets, invertedPassages, invertedImpacts } = index;
  const end = invertedOffsets[t + 1]!;
  let j = invertedOffsets[t]!;
  while (j < end) {
    const block = invertedPassages[j]! >>> shift;
    let max = 0;
    for (; j < end && invertedPassages[j]! >>> shift === block; j++)
      if (invertedImpacts[j]! > max) max = invertedImpacts[j]!;
    emit(block, max);
  }
}

/** The byte of a block maximum: rounded up, at least 1, at most 255. */
function toByte(max: number, unit: number): number {
  return Math.min(255, Math.max(1, Math.ceil(max / unit)));
}

/**
 * Derives the bounds of `index` (about one pass over its postings, twice).
 *
 * @example const matrix = boundMatrix(index); matrix.denseTerms
 */
export function boundMatrix(index: SparseIndexData, options: BoundMatrixOptions = {}): BoundMatrix {
  const blockSize = options.blockSize ?? BMP_BLOCK_SIZE;
  const blockShift = Math.log2(blockSize);
  if (!Number.isInteger(blockShift) || blockShift < 0 || blockShift > 16)
    throw new RangeError(`the block size must be a power of two up to 65536, got ${blockSize}`);
  const terms = index.terms.length;
  const blocks = Math.ceil(index.passageIds.length / blockSize);
  const { blockCounts, maxima } = termStats(index, blockShift);
  const exactBytes = index.quantization > 0;
  const units = Float64Array.from(maxima, (max) =>
    max === 0 ? 0 : exactBytes && max <= 255 ? 1 : max / 255,
  );
  const denseFrom = Math.max(1, Math.ceil((options.denseShare ?? BMP_DENSE_SHARE) * blocks));
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
  for (let t = 0; t < terms; t++) {
    const unit = units[t]!;
    if (denseRow[t]! >= 0) {
      const row = kernel.rows.subarray(denseRow[t]! * kernel.rowBytes);
      eachBlockMax(index, t, blockShift, (block, max) => (row[block] = toByte(max, unit)));
    } else {
      let at = sparseOffsets[t]!;
      eachBlockMax(index, t, blockShift, (block, max) => {
        sparseBlocks[at] = block;
        sparseMax[at++] = toByte(max, unit);
      });
    }
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
