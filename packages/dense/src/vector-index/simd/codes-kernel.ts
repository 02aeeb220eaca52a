import type { RowCodec, RowStorage } from '../row-codec.js';
import { TopK } from '../top-k.js';
import { emptyResult, type Metric, type SearchResult } from '../types.js';
import { codesWasm } from './codes-wasm.js';
import {
  CODE_QUERY_BLOCK,
  rowsGeometry,
  type RowsGeometry,
  type SharedRows,
} from './shared-rows.js';
import { instantiate, type SharedMemory } from 'irserve/wasm';

/** float16 and float32 rows: `l2` 0 sums the inner product, 1 the squared distance. */
type FloatRowsKernel = (
  q: number,
  mask: number,
  rows: number,
  n: number,
  rowBytes: number,
  out: number,
  l2: number,
) => void;

interface CodesExports {
  sq8_ip(w: number, rows: number, n: number, rowBytes: number, out: number): void;
  sq8_l2(a: number, steps: number, rows: number, n: number, rowBytes: number, out: number): void;
  f16: FloatRowsKernel;
  f32: FloatRowsKernel;
}

/** What the kernels of codes.wat need to score an index's rows (posted to helper threads). */
export interface CodesLayout {
  storage: RowStorage;
  metric: Metric;
  dim: number;
  rowBytes: number;
  count: number;
  /** SQ8: `dim` minimums then `dim` widths. */
  ranges: Float32Array | undefined;
  memories: readonly SharedMemory[];
  perSegment: number;
  slots: number;
}

/** Query vectors of a batch, as the kernels read them, and the constant each score adds. */
export interface PreparedQueries {
  count: number;
  /** `count` vectors of the layout's vector length, zero past the row's dimensions. */
  vectors: Float32Array;
  bases: Float64Array;
}

/**
 * The layout of `rows` for `codec` and `metric`, with the constants every query shares written
 * into each memory: the mask that keeps a float row's kernel pass to its own bytes, and SQ8's
 * per-dimension steps.
 */
export function codesLayout(rows: SharedRows, codec: RowCodec, metric: Metric): CodesLayout {
  const { dim, rowBytes, storage, ranges } = codec;
  const geometry = rowsGeometry(rowBytes, rows.slots);
  for (const memory of rows.memories) {
    const mask = new Uint8Array(memory.buffer, geometry.maskOffset, geometry.paddedBytes);
    mask.fill(0).fill(0xff, 0, rowBytes);
    const steps = new Float32Array(memory.buffer, geometry.stepsOffset, geometry.vectorBytes / 4);
    steps.fill(0);
    if (ranges) for (let j = 0; j < dim; j++) steps[j] = ranges[dim + j]! / 255;
  }
  const { memories, slots, perSegment, count } = rows;
  return { storage, metric, dim, rowBytes, count, ranges, memories, perSegment, slots };
}

/** Floats of one query's vector: one per dimension the padded row covers. */
function vectorFloats(layout: CodesLayout, geometry: RowsGeometry): number {
  const bytesPerDim = layout.rowBytes / layout.dim;
  return geometry.paddedBytes / bytesPerDim;
}

/**
 * The query vectors of `queries` for the kernels. SQ8 folds the decoding into the query as the
 * JavaScript scorer does (scalar-quantizer.ts): ip weights q_j * step_j and a constant
 * sum of q_j (min_j + step_j / 2); l2 uses a_j = q_j - min_j - step_j / 2.
 */
export function prepareQueries(layout: CodesLayout, queries: Float32Array): PreparedQueries {
  const { dim, storage, metric, ranges } = layout;
  const stride = vectorFloats(layout, rowsGeometry(layout.rowBytes, layout.slots));
  const count = queries.length / dim;
  const vectors = new Float32Array(count * stride);
  const bases = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const at = i * stride;
    if (storage !== 'sq8' || !ranges) {
      vectors.set(queries.subarray(i * dim, (i + 1) * dim), at);
      continue;
    }
    let base = 0;
    for (let j = 0; j < dim; j++) {
      const q = queries[i * dim + j]!;
      const step = ranges[dim + j]! / 255;
      if (metric === 'ip') {
        vectors[at + j] = q * step;
        base += q * (ranges[j]! + step / 2);
      } else vectors[at + j] = q - ranges[j]! - step / 2;
    }
    bases[i] = base;
  }
  return { count, vectors, bases };
}

/** One memory's kernel instance and this thread's views of its scratch. */
interface Instance {
  kernel: CodesExports;
  vectors: Float32Array;
  out: Float32Array;
  /** The batch and block whose vectors the scratch holds. */
  holds: PreparedQueries | undefined;
  holdsFirst: number;
}

/**
 * Scores rows in shared memory against a batch of queries on this thread, with the kernels of
 * codes.wat, a block of queries at a time over each tile of rows (the tile stays in cache).
 * `slot` picks this thread's scratch. Scores are float32 sums: ranking only (the caller
 * rescores the winners with the codec).
 */
export class CodesKernel {
  readonly #layout: CodesLayout;
  readonly #geometry: RowsGeometry;
  readonly #slot: number;
  readonly #instances: Instance[] = [];

  constructor(layout: CodesLayout, slot: number) {
    if (slot >= layout.slots) throw new RangeError(`slot ${slot} of ${layout.slots}`);
    this.#layout = layout;
    this.#geometry = rowsGeometry(layout.rowBytes, layout.slots);
    this.#slot = slot;
  }

  /** Rows per kernel call. */
  get tileRows(): number {
    return this.#geometry.tileRows;
  }

  /** The exact-for-ranking top-k of rows `start .. end - 1` (labels are row positions). */
  search(start: number, end: number, queries: Float32Array, k: number): SearchResult {
    const prepared = prepareQueries(this.#layout, queries);
    const n = prepared.count;
    const result = emptyResult(n, k);
    const heaps = Array.from({ length: Math.min(n, CODE_QUERY_BLOCK) }, () => new TopK(k));
    const { perSegment } = this.#layout;
    for (let first = 0; first < n; first += CODE_QUERY_BLOCK) {
      for (let row = start; row < end;) {
        const segment = Math.floor(row / perSegment);
        const stop = Math.min(end, (segment + 1) * perSegment);
        while (row < stop) {
          const rows = Math.min(this.tileRows, stop - row);
          this.scoreTile(segment, row - segment * perSegment, rows, row, prepared, first, heaps);
          row += rows;
        }
      }
      const block = Math.min(CODE_QUERY_BLOCK, n - first);
      for (let i = 0; i < block; i++)
        heaps[i]!.drainInto(result.labels, result.scores, (first + i) * k);
    }
    return result;
  }

  /**
   * Scores `rows` rows of memory `segment` from row `at` of it for the block of queries from
   * `first`, offering row i to each query's heap (`heaps[0]` for query `first`) as label
   * `label + i`.
   */
  scoreTile(
    segment: number,
    at: number,
    rows: number,
    label: number,
    prepared: PreparedQueries,
    first: number,
    heaps: TopK[],
  ): void {
    const block = Math.min(CODE_QUERY_BLOCK, prepared.count - first);
    const sign = this.#layout.metric === 'l2' ? -1 : 1;
    for (let i = 0; i < block; i++) {
      const out = this.rawScores(segment, at, rows, prepared, first + i);
      collect(heaps[i]!, out, rows, label, prepared.bases[first + i]!, sign);
    }
  }

  /**
   * The kernel's sums for query `query` of `prepared` over `rows` rows of memory `segment`
   * from its row `at` (a view, valid until the next call): ip scores less the query's
   * constant, or squared distances.
   */
  rawScores(
    segment: number,
    at: number,
    rows: number,
    prepared: PreparedQueries,
    query: number,
  ): Float32Array {
    const first = query - (query % CODE_QUERY_BLOCK);
    const instance = this.#instance(segment);
    this.#hold(instance, prepared, first);
    const { metric, storage, rowBytes } = this.#layout;
    const g = this.#geometry;
    const rowsAt = g.rowsOffset + at * rowBytes;
    const scratch = g.slotOffset + this.#slot * g.slotBytes;
    const outAt = scratch + CODE_QUERY_BLOCK * g.vectorBytes;
    const q = scratch + (query - first) * g.vectorBytes;
    const l2 = metric === 'l2' ? 1 : 0;
    const { kernel } = instance;
    if (storage === 'sq8') {
      if (l2) kernel.sq8_l2(q, g.stepsOffset, rowsAt, rows, rowBytes, outAt);
      else kernel.sq8_ip(q, rowsAt, rows, rowBytes, outAt);
    } else if (storage === 'f16') kernel.f16(q, g.maskOffset, rowsAt, rows, rowBytes, outAt, l2);
    else kernel.f32(q, g.maskOffset, rowsAt, rows, rowBytes, outAt, l2);
    return instance.out.subarray(0, rows);
  }

  /** Writes the block of query vectors from `first` into this thread's scratch, unless there. */
  #hold(instance: Instance, prepared: PreparedQueries, first: number): void {
    if (instance.holds === prepared && instance.holdsFirst === first) return;
    const stride = prepared.vectors.length / prepared.count;
    const block = Math.min(CODE_QUERY_BLOCK, prepared.count - first);
    const floatsPerSlot = this.#geometry.vectorBytes / 4;
    for (let i = 0; i < block; i++) {
      const from = (first + i) * stride;
      instance.vectors.set(prepared.vectors.subarray(from, from + stride), i * floatsPerSlot);
    }
    instance.holds = prepared;
    instance.holdsFirst = first;
  }

  #instance(segment: number): Instance {
    const existing = this.#instances[segment];
    if (existing) return existing;
    const memory = this.#layout.memories[segment]!;
    const g = this.#geometry;
    const scratch = g.slotOffset + this.#slot * g.slotBytes;
    const floats = (CODE_QUERY_BLOCK * g.vectorBytes) / 4;
    const instance: Instance = {
      kernel: instantiate<CodesExports>(codesWasm, memory),
      vectors: new Float32Array(memory.buffer, scratch, floats),
      out: new Float32Array(memory.buffer, scratch + floats * 4, g.tileRows),
      holds: undefined,
      holdsFirst: -1,
    };
    return (this.#instances[segment] = instance);
  }
}

/** Offers `base + sign * out[i]` as label `label + i` to `heap`, skipping those below its threshold. */
function collect(
  heap: TopK,
  out: Float32Array,
  rows: number,
  label: number,
  base: number,
  sign: number,
): void {
  let threshold = heap.threshold;
  for (let i = 0; i < rows; i++) {
    const score = base + sign * out[i]!;
    if (score > threshold) {
      heap.push(score, label + i);
      threshold = heap.threshold;
    }
  }
}
