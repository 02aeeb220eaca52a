import type { RowCodec } from './row-codec.js';
import type { RowStore } from './row-store.js';
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

/**
 * Exhaustive search over encoded rows (`SQfp16`, `SQ8`, or float32 rows too large for the
 * shared-memory kernel of `FlatIndex`): every query scores every row through its codec. The
 * rows are visited once per batch, tile by tile, each tile scored for every query in turn, so
 * a store read from disk is read once per batch. Scores are those of the decoded vectors.
 */
export class ScanFlatIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  readonly codec: RowCodec;
  readonly rows: RowStore;

  constructor(codec: RowCodec, rows: RowStore, metric: Metric, factory: string) {
    if (rows.rowBytes !== codec.rowBytes)
      throw new RangeError(`rows of ${rows.rowBytes} bytes, the codec stores ${codec.rowBytes}`);
    this.codec = codec;
    this.rows = rows;
    this.dim = codec.dim;
    this.metric = metric;
    this.count = rows.count;
    this.factory = factory;
  }

  search(queries: Float32Array, k: number): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    const result = emptyResult(n, k);
    if (n === 0 || this.count === 0) return result;
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
