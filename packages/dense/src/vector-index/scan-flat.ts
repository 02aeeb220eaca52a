import { availableParallelism } from 'node:os';
import type { RowCodec } from './row-codec.js';
import type { RowStore } from './row-store.js';
import { codesLayout } from './simd/codes-kernel.js';
import { ParallelDots } from './simd/parallel-dots.js';
import { SharedRows } from './simd/shared-rows.js';
import { StreamedCodes } from './simd/streamed-codes.js';
import { TopK } from './top-k.js';
import {
  checkQueries,
  emptyResult,
  type Metric,
  type RowScorer,
  type SearchResult,
  type VectorIndex,
} from './types.js';

/** Rows scored per query before the next query takes the same rows (they stay in cache). */
const TILE_ROWS = 4096;

export interface ScanFlatOptions {
  /** Threads for search of rows held in shared memory (0: all cores). */
  threads?: number;
  /** false: score with the JavaScript scan instead of the WebAssembly kernels (default true). */
  kernel?: boolean;
}

/**
 * Exhaustive search over encoded rows (`SQfp16`, `SQ8`, or float32 rows too large for the
 * shared-memory kernel of `FlatIndex`, or paged). The WebAssembly SIMD kernels of
 * simd/codes.wat rank the rows: in place on every core when the rows sit in shared memory
 * ({@link SharedRows}, as loaders and builders allocate them), else (a paged file) tile by
 * tile on this thread as the tiles are read, so a file is read once per batch. The winners
 * are then rescored through the codec, so scores are those of the decoded vectors, as the
 * JavaScript scan (kept for when no shared memory can be had) computes them.
 */
export class ScanFlatIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  readonly codec: RowCodec;
  readonly rows: RowStore;
  readonly #threads: number;
  /** The search kernel, made on first search; null: none can be had (JavaScript scan). */
  #kernel: ParallelDots | StreamedCodes | null | undefined;

  constructor(
    codec: RowCodec,
    rows: RowStore,
    metric: Metric,
    factory: string,
    options: ScanFlatOptions = {},
  ) {
    if (rows.rowBytes !== codec.rowBytes)
      throw new RangeError(`rows of ${rows.rowBytes} bytes, the codec stores ${codec.rowBytes}`);
    this.codec = codec;
    this.rows = rows;
    this.dim = codec.dim;
    this.metric = metric;
    this.count = rows.count;
    this.factory = factory;
    this.#threads = options.threads ?? 0;
    if (options.kernel === false) this.#kernel = null;
  }

  search(queries: Float32Array, k: number): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    if (n === 0 || this.count === 0) return emptyResult(n, k);
    const kernel = this.#searchKernel();
    if (!kernel) return this.#scan(queries, n, k);
    const result =
      kernel instanceof ParallelDots
        ? kernel.search(queries, k)
        : kernel.search(this.rows, queries, k);
    this.#rescore(queries, result, k);
    return result;
  }

  /** Stops the helper threads of parallel searches, if any were started. */
  close(): void {
    if (this.#kernel instanceof ParallelDots) this.#kernel.close();
  }

  #searchKernel(): ParallelDots | StreamedCodes | null {
    if (this.#kernel !== undefined) return this.#kernel;
    const { rows, codec, metric } = this;
    if (!(rows instanceof SharedRows))
      return (this.#kernel = StreamedCodes.create(codec, metric) ?? null);
    const cores = this.#threads > 0 ? this.#threads : availableParallelism();
    const threads = Math.min(cores, rows.slots);
    return (this.#kernel = new ParallelDots(codesLayout(rows, codec, metric), threads));
  }

  /**
   * Replaces the kernel's float32 scores of the winners by the codec's (the decoded vectors'),
   * and orders each query's results by them (best first, then by position).
   */
  #rescore(queries: Float32Array, { labels, scores }: SearchResult, k: number): void {
    const out = new Float32Array(1);
    const order = Array.from({ length: k }, (_, i) => i);
    const best = new Int32Array(k);
    const bestScores = new Float32Array(k);
    for (let q = 0; q < labels.length / k; q++) {
      const scorer = this.codec.scorer(queries, q * this.dim, this.metric);
      const at = q * k;
      for (let i = at; i < at + k && labels[i]! >= 0; i++) {
        scorer(this.rows.row(labels[i]!), 0, 1, out);
        scores[i] = out[0]!;
      }
      order.sort((a, b) => scores[at + b]! - scores[at + a]! || labels[at + a]! - labels[at + b]!);
      order.forEach((from, i) => {
        best[i] = labels[at + from]!;
        bestScores[i] = scores[at + from]!;
      });
      labels.set(best, at);
      scores.set(bestScores, at);
      for (let i = 0; i < k; i++) order[i] = i;
    }
  }

  /** The JavaScript scan: every query scores every row through its codec, tile by tile. */
  #scan(queries: Float32Array, n: number, k: number): SearchResult {
    const result = emptyResult(n, k);
    const scorers: RowScorer[] = [];
    for (let q = 0; q < n; q++) scorers.push(this.codec.scorer(queries, q * this.dim, this.metric));
    const heaps = scorers.map(() => new TopK(Math.min(k, this.count)));
    const scores = new Float32Array(TILE_ROWS);
    for (let first = 0; first < this.count; first += TILE_ROWS) {
      const rows = Math.min(TILE_ROWS, this.count - first);
      this.rows.scan(first, rows, (bytes, byteOffset, row, count) => {
        for (let q = 0; q < n; q++) {
          scorers[q]!(bytes, byteOffset, count, scores);
          pushAll(heaps[q]!, scores, count, row);
        }
      });
    }
    heaps.forEach((heap, q) => heap.drainInto(result.labels, result.scores, q * k));
    return result;
  }

  vector(position: number): Float32Array {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0..${this.count - 1}`);
    }
    const out = new Float32Array(this.dim);
    this.codec.decode(this.rows.row(position), 0, out, 0);
    return out;
  }
}

/** Offers `count` scores (of rows `first ..`) to `heap`, skipping those below its threshold. */
export function pushAll(heap: TopK, scores: Float32Array, count: number, first: number): void {
  let threshold = heap.threshold;
  for (let i = 0; i < count; i++) {
    const s = scores[i]!;
    if (s > threshold) {
      heap.push(s, first + i);
      threshold = heap.threshold;
    }
  }
}
