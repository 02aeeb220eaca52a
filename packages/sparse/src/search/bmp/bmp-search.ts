/**
 * Block-max pruning made fast (Mallia, Suel and Tonellotto's BMP, SIGIR 2024, with small
 * blocks): every block of 4 passages gets an upper bound of its passages' scores, summed from
 * one-byte block maxima (dense rows with WebAssembly SIMD for the frequent terms, sparse lists
 * for the rare ones, all exact integer arithmetic); then blocks are scored exactly from the
 * forward index, highest bounds first (bucket by bucket, no full sort), until the next bound is
 * below the k-th score. Results equal exhaustive search's, scores bit for bit: a passage's score
 * adds the same products in the same order (ascending term id).
 *
 * Safety of the bounds: a term's block byte times its unit is at least its largest impact in
 * the block (rounded up); the query's multiplier of a term is `ceil(weight * unit * scale *
 * (1 + 1e-6))`, so a block's integer bound over `scale` exceeds every score in the block by a
 * relative margin far above floating-point rounding. A block is skipped only when its bound is
 * below `threshold * scale`.
 */
import type { SparseIndexData } from '../../index/types.js';
import type { QueryTerms } from '../query-terms.js';
import { TopK } from '../top-k.js';
import type { PassageHits, SearchOptions } from '../types.js';
import {
  boundMatrix,
  boundMatrixInTurns,
  type BoundMatrix,
  type BoundMatrixOptions,
} from './bound-matrix.js';
import { bucketScratch, visitByBound, type BucketScratch } from './bucket-order.js';
import { forwardView, scoreRange, scoreRangeInt, type ForwardReader } from './forward-view.js';
import { memoryLists, type ListSource } from './list-source.js';
import { SplitBounds, type BoundsThreads } from './split-bounds.js';

/** Relative margin added to every multiplier (covers floating-point rounding of scores). */
const MARGIN = 1 + 1e-6;
/** Largest multiplier of a term (u16 lanes; 1/32,000 of the heaviest term is precise enough). */
const MAX_MULT = 32_000;
/**
 * Largest sum of multipliers: 255 times it stays below 2^31, so bounds are small integers for
 * JavaScript (a u32 above 2^31 would be read as a double, several times slower).
 */
const MAX_MULT_SUM = 8_000_000;
/** Blocks the first round of `visitByBound` gathers, at least. */
const FIRST_ROUND_BLOCKS = 512;

/**
 * The block bounds and the scratch of one searcher: the dense rows are written once, but each
 * query's block bounds are summed into the same WebAssembly memory, so one search at a time.
 */
export interface BmpScratch {
  matrix: BoundMatrix;
  /** Passages of the index, and its quantization (0: float impacts). */
  passages: number;
  quantization: number;
  forward: ForwardReader;
  termWeights: Float64Array;
  /** The same weights as integers, for integer indexes whose scores fit 31 bits. */
  intWeights: Int32Array;
  buckets: BucketScratch;
  sparseTerms: Uint32Array;
  sparseMults: Int32Array;
  /** The helper threads summing the dense bounds with the search thread, when asked for. */
  split: SplitBounds | undefined;
}

/** How the bounds are derived, and how many threads sum them per query (default one). */
export interface BmpOptions extends BoundMatrixOptions {
  threads?: BoundsThreads;
}

/** Ends the scratch's helper threads, if it has any (a searcher closing). */
export async function closeBmpScratch(scratch: BmpScratch): Promise<void> {
  await scratch.split?.close();
}

/**
 * Derives the block bounds of `index` and a searcher's scratch (about two passes over the
 * postings: do it once, at start-up).
 *
 * @example const scratch = bmpScratch(index); bmpSearch(query, { k: 10 }, scratch)
 */
export function bmpScratch(index: SparseIndexData, options?: BmpOptions): BmpScratch {
  const matrix = boundMatrix(index, options);
  return scratchWith(memoryLists(index), matrix, forwardView(index), options?.threads);
}

/**
 * A searcher's scratch with the bounds derived a step at a time (the event loop let go between
 * steps) from `lists`, scoring passages from `forward`: an index in memory (`bmpScratch`'s
 * arguments), or one served from its files (`fileLists`, `openFileForward`).
 *
 * @example const scratch = await bmpScratchInTurns(memoryLists(index), forwardView(index));
 */
export async function bmpScratchInTurns(
  lists: ListSource,
  forward: ForwardReader,
  options?: BmpOptions,
  signal?: AbortSignal,
): Promise<BmpScratch> {
  const matrix = await boundMatrixInTurns(lists, options, signal);
  return scratchWith(lists, matrix, forward, options?.threads);
}

function scratchWith(
  lists: ListSource,
  matrix: BoundMatrix,
  forward: ForwardReader,
  threads: BoundsThreads | undefined,
): BmpScratch {
  return {
    matrix,
    passages: lists.passages,
    quantization: lists.quantization,
    forward,
    termWeights: new Float64Array(lists.terms),
    intWeights: new Int32Array(lists.quantization > 0 ? lists.terms : 0),
    buckets: bucketScratch(matrix.blocks),
    sparseTerms: new Uint32Array(lists.terms),
    sparseMults: new Int32Array(lists.terms),
    split:
      threads !== undefined && threads.threads > 1
        ? new SplitBounds(matrix.kernel, threads)
        : undefined,
  };
}

/**
 * Sets the query's multipliers (dense terms in the kernel, sparse ones in the scratch); returns
 * the scale (bound units per score unit; 0 when no query term has postings) and the count of
 * sparse terms.
 */
function prepare(
  query: QueryTerms,
  scratch: BmpScratch,
): { scale: number; sparse: number; largestScore: number } {
  const { units, denseRow, kernel } = scratch.matrix;
  let largest = 0;
  let total = 0;
  for (let i = 0; i < query.terms.length; i++) {
    const worth = query.weights[i]! * units[query.terms[i]!]!;
    largest = Math.max(largest, worth);
    total += worth;
  }
  kernel.reset();
  if (total === 0) return { scale: 0, sparse: 0, largestScore: 0 };
  const room = MAX_MULT_SUM - query.terms.length;
  if (room <= 0) throw new RangeError(`a query of ${query.terms.length} terms is too long`);
  const scale = Math.min(MAX_MULT / (largest * MARGIN), room / (total * MARGIN));
  let sparse = 0;
  for (let i = 0; i < query.terms.length; i++) {
    const term = query.terms[i]!;
    const worth = query.weights[i]! * units[term]!;
    if (worth === 0) continue;
    const mult = Math.ceil(worth * scale * MARGIN);
    if (denseRow[term]! >= 0) kernel.addRow(denseRow[term]!, mult);
    else {
      scratch.sparseTerms[sparse] = term;
      scratch.sparseMults[sparse++] = mult;
    }
  }
  // A term's largest impact is at most 255 units (exactly 255 when its unit is not 1).
  return { scale, sparse, largestScore: 255 * total };
}

/** Every block's bound: dense rows in the kernel, then the sparse lists; returns the largest. */
function sumBounds(scratch: BmpScratch, sparse: number): { max: number; work: number } {
  const { kernel, sparseOffsets, sparseBlocks, sparseMax } = scratch.matrix;
  const bounds = kernel.bounds;
  let max = scratch.split ? scratch.split.sum() : kernel.sum();
  let work = 0;
  for (let i = 0; i < sparse; i++) {
    const term = scratch.sparseTerms[i]!;
    const mult = scratch.sparseMults[i]!;
    const end = sparseOffsets[term + 1]!;
    for (let j = sparseOffsets[term]!; j < end; j++) {
      const block = sparseBlocks[j]!;
      const bound = (bounds[block]! + mult * sparseMax[j]!) | 0;
      bounds[block] = bound;
      if (bound > max) max = bound;
    }
    work += end - sparseOffsets[term]!;
  }
  return { max, work };
}

/** Sets (or, with `clear`, zeroes) the query's weights in the table the scoring reads. */
function setWeights(query: QueryTerms, table: Float64Array | Int32Array, clear: boolean): void {
  for (let i = 0; i < query.terms.length; i++)
    table[query.terms[i]!] = clear ? 0 : query.weights[i]!;
}

/**
 * The top k passages, equal to `exhaustiveSearch`'s, scoring only the blocks that can matter.
 *
 * @example bmpSearch(query, { k: 10 }, bmpScratch(index))
 */
export function bmpSearch(
  query: QueryTerms,
  options: SearchOptions,
  scratch: BmpScratch,
): PassageHits {
  const { matrix, forward, termWeights, intWeights } = scratch;
  const top = new TopK(options.k);
  const { scale, sparse, largestScore } = prepare(query, scratch);
  if (scale === 0 || options.k === 0) return { ...top.sorted(), work: 0, scored: 0 };
  const summed = sumBounds(scratch, sparse);
  let work = summed.work + matrix.kernel.groups * (query.terms.length - sparse);
  let scored = 0;
  const integer = scratch.quantization > 0 && largestScore < 2 ** 31;
  setWeights(query, integer ? intWeights : termWeights, false);
  const blockSize = 2 ** matrix.blockShift;
  const passages = scratch.passages;
  const scoreBlock = (block: number) => {
    const first = block * blockSize;
    const last = Math.min(passages, first + blockSize);
    const view = forward(first, last);
    scored += integer
      ? scoreRangeInt(view, first, last, intWeights, options.filter, top)
      : scoreRange(view, first, last, termWeights, options.filter, top);
    work += view.offsets[last]! - view.offsets[first]!;
  };
  const firstRound = Math.max(FIRST_ROUND_BLOCKS, 2 * Math.ceil(options.k / blockSize));
  const threshold = () => top.threshold * scale;
  // Read after the visits: `work += visitByBound(...)` would drop what scoreBlock added.
  const passes = visitByBound(
    matrix.kernel.bounds,
    matrix.blocks,
    summed.max,
    firstRound,
    threshold,
    scoreBlock,
    scratch.buckets,
  );
  work += passes;
  setWeights(query, integer ? intWeights : termWeights, true);
  return { ...top.sorted(), work, scored };
}
