import { TopK } from '../top-k.js';
import { emptyResult, type SearchResult } from '../types.js';
import { dotsWasm } from './dots-wasm.js';

/** The slice of the WebAssembly API used here (@types/node 20 does not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

interface DotsExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  dots(q: number, nq: number, t: number, nt: number, stride: number, out: number): void;
  dot1(query: number, t: number, nt: number, stride: number, out: number): void;
}

/** Database vectors copied into the kernel's memory per call: sized to stay in cache. */
const TILE_BYTES = 4 << 20;
/** Queries per kernel call: 64 rows of a 768-d model are 192 KiB, which stay in L2. */
const QUERY_BLOCK = 64;
const PAGE = 65536;

/**
 * Exact top-k for a batch of queries with a WebAssembly SIMD kernel (dots.wat). usearch's
 * exact search computes one (vector, query) distance per call of its metric; this computes a
 * 4-query by 2-vector block per pass, so a batch costs several times less per pair. Single
 * queries gain nothing (they are bound by reading the vectors) and stay with usearch.
 *
 * Scores are float32 sums (the caller rescores the winners exactly). For `l2`, ranking uses
 * `2 q·v - |v|²`, which orders like the negative squared distance.
 */
export class BatchDots {
  readonly #dim: number;
  readonly #strideFloats: number;
  readonly #tileRows: number;
  readonly #kernel: DotsExports;
  readonly #tileOffset: number;
  readonly #outOffset: number;

  constructor(dim: number) {
    this.#dim = dim;
    this.#strideFloats = Math.ceil(dim / 4) * 4;
    const rowBytes = this.#strideFloats * 4;
    this.#tileRows = Math.max(4, Math.floor(TILE_BYTES / rowBytes) & ~3);
    this.#tileOffset = QUERY_BLOCK * rowBytes;
    this.#outOffset = this.#tileOffset + this.#tileRows * rowBytes;
    const bytes = this.#outOffset + QUERY_BLOCK * this.#tileRows * 4;
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const instance = new wasm.Instance(new wasm.Module(dotsWasm));
    this.#kernel = instance.exports as DotsExports;
    this.#kernel.memory.grow(Math.ceil(bytes / PAGE));
  }

  /**
   * The `k` best of `count` vectors for each of the `n` queries. `squaredNorms` (one per
   * vector) switches to l2 ranking.
   */
  search(
    vectors: Float32Array,
    count: number,
    queries: Float32Array,
    k: number,
    squaredNorms?: Float32Array,
  ): SearchResult {
    const n = queries.length / this.#dim;
    const result = emptyResult(n, k);
    const heaps = Array.from({ length: Math.min(n, QUERY_BLOCK) }, () => new TopK(k));
    for (let first = 0; first < n; first += QUERY_BLOCK) {
      const block = Math.min(QUERY_BLOCK, n - first);
      this.#copyRows(queries, first, block, 0);
      for (let start = 0; start < count; start += this.#tileRows) {
        const rows = Math.min(this.#tileRows, count - start);
        this.#copyRows(vectors, start, rows, this.#tileOffset);
        const paddedRows = Math.ceil(rows / 4) * 4;
        this.#computeTile(block, paddedRows);
        this.#collect(heaps, block, start, rows, paddedRows, squaredNorms);
      }
      for (let i = 0; i < block; i++) {
        heaps[i]!.drainInto(result.labels, result.scores, (first + i) * k);
      }
    }
    return result;
  }

  /** Scores of the block's queries against the tile: 4 x 2 passes, or 1 x 4 below 4 queries. */
  #computeTile(block: number, paddedRows: number): void {
    const stride = this.#strideFloats * 4;
    if (block >= 4) {
      const paddedBlock = Math.ceil(block / 4) * 4;
      this.#kernel.dots(0, paddedBlock, this.#tileOffset, paddedRows, stride, this.#outOffset);
      return;
    }
    for (let i = 0; i < block; i++) {
      const out = this.#outOffset + i * paddedRows * 4;
      this.#kernel.dot1(i * stride, this.#tileOffset, paddedRows, stride, out);
    }
  }

  /** Copies `rows` rows of `source` from row `first` into kernel memory at `offset`. */
  #copyRows(source: Float32Array, first: number, rows: number, offset: number): void {
    const memory = new Float32Array(this.#kernel.memory.buffer);
    const dim = this.#dim;
    const at = offset / 4;
    if (this.#strideFloats === dim) {
      memory.set(source.subarray(first * dim, (first + rows) * dim), at);
      return;
    }
    for (let r = 0; r < rows; r++) {
      const row = source.subarray((first + r) * dim, (first + r + 1) * dim);
      memory.set(row, at + r * this.#strideFloats);
    }
  }

  /** Feeds one tile's scores to each query's heap, skipping those below its threshold. */
  #collect(
    heaps: TopK[],
    block: number,
    start: number,
    rows: number,
    paddedRows: number,
    squaredNorms: Float32Array | undefined,
  ): void {
    const out = new Float32Array(this.#kernel.memory.buffer, this.#outOffset, block * paddedRows);
    for (let i = 0; i < block; i++) {
      const heap = heaps[i]!;
      let threshold = heap.threshold;
      const base = i * paddedRows;
      for (let j = 0; j < rows; j++) {
        const dot = out[base + j]!;
        const score = squaredNorms ? 2 * dot - squaredNorms[start + j]! : dot;
        if (score > threshold) {
          heap.push(score, start + j);
          threshold = heap.threshold;
        }
      }
    }
  }
}
