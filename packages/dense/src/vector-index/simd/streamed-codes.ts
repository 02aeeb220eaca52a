import type { RowCodec } from '../row-codec.js';
import type { RowStore } from '../row-store.js';
import { TopK } from '../top-k.js';
import { emptyResult, type Metric, type SearchResult } from '../types.js';
import { CodesKernel, codesLayout, prepareQueries, type CodesLayout } from './codes-kernel.js';
import { CODE_QUERY_BLOCK, rowsGeometry, SharedRows } from './shared-rows.js';

/**
 * Exhaustive search of rows that do not sit in shared memory (a paged file, whose pages are
 * read and checked as the scan reaches them): each tile of rows is copied into a small shared
 * memory as it is read, then scored there by codes.wat's kernel for every query of the batch.
 * One thread, as the reads are. Scores rank only: the caller rescores the winners.
 */
export class StreamedCodes {
  readonly #rows: SharedRows;
  readonly #layout: CodesLayout;
  readonly #kernel: CodesKernel;

  private constructor(rows: SharedRows, layout: CodesLayout) {
    this.#rows = rows;
    this.#layout = layout;
    this.#kernel = new CodesKernel(layout, 0);
  }

  /** Undefined when no shared WebAssembly memory can be had. */
  static create(codec: RowCodec, metric: Metric): StreamedCodes | undefined {
    const { tileRows } = rowsGeometry(codec.rowBytes, 1);
    const rows = SharedRows.tryAllocate(tileRows, codec.rowBytes, 1);
    return rows && new StreamedCodes(rows, codesLayout(rows, codec, metric));
  }

  search(store: RowStore, queries: Float32Array, k: number): SearchResult {
    const prepared = prepareQueries(this.#layout, queries);
    const n = prepared.count;
    const heaps = Array.from({ length: n }, () => new TopK(k));
    const blocks: TopK[][] = [];
    for (let first = 0; first < n; first += CODE_QUERY_BLOCK)
      blocks.push(heaps.slice(first, first + CODE_QUERY_BLOCK));
    const tile = this.#rows.segments[0]!;
    const { rowBytes } = store;
    const tileRows = this.#rows.count;
    for (let from = 0; from < store.count; from += tileRows) {
      const rows = Math.min(tileRows, store.count - from);
      store.scan(from, rows, (bytes, byteOffset, row, count) =>
        tile.set(
          bytes.subarray(byteOffset, byteOffset + count * rowBytes),
          (row - from) * rowBytes,
        ),
      );
      blocks.forEach((block, b) =>
        this.#kernel.scoreTile(0, 0, rows, from, prepared, b * CODE_QUERY_BLOCK, block),
      );
    }
    const result = emptyResult(n, k);
    heaps.forEach((heap, q) => heap.drainInto(result.labels, result.scores, q * k));
    return result;
  }
}
