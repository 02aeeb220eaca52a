import { TopK } from '../top-k.js';
import { emptyResult, type SearchResult } from '../types.js';
import {
  copyRows,
  instantiateDots,
  QUERY_BLOCK,
  type DotsExports,
  type SharedLayout,
} from './shared-vectors.js';

/**
 * Exact top-k of a range of the shared vectors for a batch of queries, on this thread, with
 * the WebAssembly SIMD kernel of dots.wat reading the vectors in place: 4 queries by 2 vectors
 * per pass from 4 queries on, 1 query by 4 vectors below. `slot` picks this thread's scratch.
 *
 * Scores are float32 sums (the caller rescores the winners exactly). With `squaredNorms`
 * (l2), ranking uses `2 q·v - |v|²`, which orders like the negative squared distance.
 */
export class DotsKernel {
  readonly #layout: SharedLayout;
  readonly #kernel: DotsExports;
  readonly #queryOffset: number;
  readonly #outOffset: number;

  constructor(layout: SharedLayout, slot: number) {
    this.#layout = layout;
    this.#kernel = instantiateDots(layout);
    this.#queryOffset = slot * layout.scratchBytes;
    this.#outOffset = this.#queryOffset + QUERY_BLOCK * layout.stride * 4;
  }

  /** Labels are positions in the whole index. */
  search(
    start: number,
    end: number,
    queries: Float32Array,
    k: number,
    squaredNorms?: Float32Array,
  ): SearchResult {
    const n = queries.length / this.#layout.dim;
    const result = emptyResult(n, k);
    const heaps = Array.from({ length: Math.min(n, QUERY_BLOCK) }, () => new TopK(k));
    for (let first = 0; first < n; first += QUERY_BLOCK) {
      const block = Math.min(QUERY_BLOCK, n - first);
      this.#copyQueries(queries, first, block);
      for (let from = start; from < end; from += this.#layout.tileRows) {
        const rows = Math.min(this.#layout.tileRows, end - from);
        this.#scoreTile(block, from, Math.ceil(rows / 4) * 4);
        this.#collect(heaps, block, from, rows, squaredNorms);
      }
      for (let i = 0; i < block; i++) {
        heaps[i]!.drainInto(result.labels, result.scores, (first + i) * k);
      }
    }
    return result;
  }

  /** Scores of the block's queries against `rows` vectors from `from` (a multiple of 4). */
  #scoreTile(block: number, from: number, rows: number): void {
    const stride = this.#layout.stride * 4;
    const tile = this.#layout.vectorsOffset + from * stride;
    if (block >= 4) {
      const paddedBlock = Math.ceil(block / 4) * 4;
      this.#kernel.dots(this.#queryOffset, paddedBlock, tile, rows, stride, this.#outOffset);
      return;
    }
    for (let i = 0; i < block; i++) {
      const out = this.#outOffset + i * rows * 4;
      this.#kernel.dot1(this.#queryOffset + i * stride, tile, rows, stride, out);
    }
  }

  #copyQueries(queries: Float32Array, first: number, block: number): void {
    const { memory, dim, stride } = this.#layout;
    const target = new Float32Array(memory.buffer, this.#queryOffset, QUERY_BLOCK * stride);
    copyRows(queries.subarray(first * dim, (first + block) * dim), dim, target, stride);
  }

  /** Feeds one tile's scores to each query's heap, skipping those below its threshold. */
  #collect(
    heaps: TopK[],
    block: number,
    from: number,
    rows: number,
    squaredNorms: Float32Array | undefined,
  ): void {
    const padded = Math.ceil(rows / 4) * 4;
    const { memory } = this.#layout;
    const out = new Float32Array(memory.buffer, this.#outOffset, block * padded);
    for (let i = 0; i < block; i++) {
      const heap = heaps[i]!;
      let threshold = heap.threshold;
      const base = i * padded;
      for (let j = 0; j < rows; j++) {
        const dot = out[base + j]!;
        const score = squaredNorms ? 2 * dot - squaredNorms[from + j]! : dot;
        if (score > threshold) {
          heap.push(score, from + j);
          threshold = heap.threshold;
        }
      }
    }
  }
}
