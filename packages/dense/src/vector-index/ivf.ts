import { FlatIndex } from './flat.js';
import { dot } from './kernels.js';
import { adcTable, decodePq, PQ_KSUB, type ProductQuantizer } from './pq.js';
import { AdcKernel } from './simd/adc-kernel.js';
import { storesResiduals } from './ivf-encode.js';
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

/** An inverted file: vectors grouped by their nearest coarse centroid, list by list. */
export interface IvfData {
  dim: number;
  metric: Metric;
  nlist: number;
  /** `nlist * dim` coarse centroids. */
  centroids: Float32Array;
  /** List l holds entries `offsets[l] .. offsets[l+1]-1` (nlist + 1 values). */
  offsets: Int32Array;
  /** Vector position of each entry, in list order. */
  ids: Int32Array;
  /** Each entry's stored row, in list order: a vector in `codec`'s storage, or a PQ code. */
  rows: RowStore;
  /** IVF-Flat (`f32`, raw vectors) and IVF-SQ (`f16`, `sq8`: residuals to the list's centroid). */
  codec?: RowCodec;
  /** IVF-PQ: rows are `pq.m`-byte codes of residuals. */
  pq?: ProductQuantizer;
  factory: string;
  /** Lists scanned per query unless a search says otherwise (faiss: 1). */
  nprobe: number;
}

/** One query's scan state: its best entries, and the lookup table or scorer of its lists. */
interface QueryScan {
  q: Float32Array;
  qo: number;
  top: TopK;
  scores: Float32Array;
}

/** IVF-Flat, IVF-SQ and IVF-PQ search: coarse lists by exact search over the centroids, then list scans. */
export class IvfIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  readonly data: IvfData;
  /** The coarse quantizer: few centroids, so one thread (no hand-off costs). */
  readonly #coarse: FlatIndex;
  /** IVF-PQ list scans in WebAssembly; null when codes are not a multiple of 4 bytes. */
  readonly #adc: AdcKernel | null;
  readonly #residuals: boolean;
  readonly #longest: number;
  #slots: Int32Array | undefined;

  get rows(): RowStore {
    return this.data.rows;
  }

  constructor(data: IvfData) {
    if (!data.codec === !data.pq) throw new Error('an IVF index holds vectors or PQ codes');
    const rowBytes = data.pq ? data.pq.m : data.codec!.rowBytes;
    if (data.rows.rowBytes !== rowBytes || data.rows.count !== data.ids.length)
      throw new RangeError(
        `IVF rows: ${data.rows.count} of ${data.rows.rowBytes} bytes for ${data.ids.length} entries of ${rowBytes}`,
      );
    this.data = data;
    this.#coarse = new FlatIndex(data.centroids, data.dim, data.metric, { threads: 1 });
    this.#longest = longestList(data);
    this.#adc = data.pq && data.pq.m % 4 === 0 ? new AdcKernel(data.pq.m, this.#longest) : null;
    this.#residuals = storesResiduals(data);
    this.dim = data.dim;
    this.metric = data.metric;
    this.count = data.ids.length;
    this.factory = data.factory;
  }

  search(queries: Float32Array, k: number, options: { nprobe?: number } = {}): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    const { nlist, dim } = this.data;
    const nprobe = Math.min(options.nprobe ?? this.data.nprobe, nlist);
    if (!Number.isInteger(nprobe) || nprobe < 1) {
      throw new RangeError(`nprobe must be a positive integer, got ${options.nprobe}`);
    }
    const result = emptyResult(n, k);
    if (n === 0 || this.count === 0) return result;
    const coarse = this.#coarse.search(queries, nprobe).labels;
    const scan: QueryScan = {
      q: queries,
      qo: 0,
      top: new TopK(k),
      scores: new Float32Array(this.#longest),
    };
    const table = new Float32Array(this.data.pq ? this.data.pq.m * PQ_KSUB : 0);
    const residual = new Float32Array(dim);
    for (let q = 0; q < n; q++) {
      scan.qo = q * dim;
      let scorer: RowScorer | undefined;
      for (let p = 0; p < nprobe; p++) {
        const list = coarse[q * nprobe + p]!;
        if (this.data.pq) this.#scanPq(scan, list, table, residual, p === 0);
        else scorer = this.#scanRows(scan, list, residual, scorer);
      }
      scan.top.drainInto(result.labels, result.scores, q * k);
    }
    return result;
  }

  /**
   * Scans one list of vectors. Raw vectors, or residuals under ip (q.(c + r) = q.c + q.r),
   * keep one scorer per query (returned for the next list); residuals under l2 score q - c.
   */
  #scanRows(
    scan: QueryScan,
    list: number,
    residual: Float32Array,
    scorer: RowScorer | undefined,
  ): RowScorer {
    const { dim, metric, centroids, offsets, ids } = this.data;
    const codec = this.data.codec!;
    let base = 0;
    if (this.#residuals && metric === 'l2') {
      for (let j = 0; j < dim; j++) residual[j] = scan.q[scan.qo + j]! - centroids[list * dim + j]!;
      scorer = codec.scorer(residual, 0, 'l2');
    } else {
      scorer ??= codec.scorer(scan.q, scan.qo, metric);
      if (this.#residuals) base = dot(scan.q, scan.qo, centroids, list * dim, dim);
    }
    const first = offsets[list]!;
    const { top, scores } = scan;
    this.data.rows.scan(first, offsets[list + 1]! - first, (bytes, byteOffset, row, count) => {
      scorer(bytes, byteOffset, count, scores);
      let threshold = top.threshold;
      for (let i = 0; i < count; i++) {
        const score = base + scores[i]!;
        if (score > threshold) {
          top.push(score, ids[row + i]!);
          threshold = top.threshold;
        }
      }
    });
    return scorer;
  }

  /**
   * faiss's residual ADC: for ip, q.(c + r) = q.c + sum of per-query table entries (the table
   * is built once per query); for l2 the table is for q - c and is rebuilt per list.
   */
  #scanPq(
    scan: QueryScan,
    list: number,
    table: Float32Array,
    residual: Float32Array,
    firstList: boolean,
  ): void {
    const { offsets, ids, dim, metric, centroids } = this.data;
    const pq = this.data.pq!;
    const { q, qo, top } = scan;
    let base = 0;
    if (metric === 'ip') {
      if (firstList) adcTable(pq, 'ip', q, qo, table);
      base = dot(q, qo, centroids, list * dim, dim);
    } else {
      for (let j = 0; j < dim; j++) residual[j] = q[qo + j]! - centroids[list * dim + j]!;
      adcTable(pq, 'l2', residual, 0, table);
    }
    const sign = metric === 'ip' ? 1 : -1;
    if (this.#adc && (metric === 'l2' || firstList)) this.#adc.setTable(table);
    const first = offsets[list]!;
    const m = pq.m;
    this.data.rows.scan(first, offsets[list + 1]! - first, (codes, byteOffset, row, count) => {
      const sums = this.#adc?.scan(codes, byteOffset, count);
      let threshold = top.threshold;
      for (let i = 0; i < count; i++) {
        const sum = sums ? sums[i]! : adcSum(table, codes, byteOffset + i * m, m);
        const score = base + sign * sum;
        if (score > threshold) {
          top.push(score, ids[row + i]!);
          threshold = top.threshold;
        }
      }
    });
  }

  /** The stored vector (IVF-Flat), or its reconstruction: centroid plus decoded residual. */
  vector(position: number): Float32Array {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0..${this.count - 1}`);
    }
    const slot = this.#slotOf(position);
    const { dim, centroids } = this.data;
    const stored = this.data.rows.row(slot);
    let out: Float32Array;
    if (this.data.pq) out = decodePq(this.data.pq, stored, 0);
    else {
      out = new Float32Array(dim);
      this.data.codec!.decode(stored, 0, out, 0);
    }
    if (!this.#residuals) return out;
    const list = this.#listOf(slot);
    for (let j = 0; j < dim; j++) out[j]! += centroids[list * dim + j]!;
    return out;
  }

  #slotOf(position: number): number {
    if (!this.#slots) {
      this.#slots = new Int32Array(this.count);
      this.data.ids.forEach((id, slot) => (this.#slots![id] = slot));
    }
    return this.#slots[position]!;
  }

  #listOf(slot: number): number {
    const { offsets } = this.data;
    let lo = 0;
    let hi = this.data.nlist - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offsets[mid]! <= slot) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * The sum of one code's table entries, four sub-quantizers per step in independent sums (the
 * lookups do not wait on each other), the table row of sub-quantizer j starting at j * 256.
 */
function adcSum(table: Float32Array, codes: Uint8Array, co: number, m: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  let row = 0;
  for (; j + 3 < m; j += 4, row += 4 * PQ_KSUB) {
    s0 += table[row + codes[co + j]!]!;
    s1 += table[row + PQ_KSUB + codes[co + j + 1]!]!;
    s2 += table[row + 2 * PQ_KSUB + codes[co + j + 2]!]!;
    s3 += table[row + 3 * PQ_KSUB + codes[co + j + 3]!]!;
  }
  for (; j < m; j++, row += PQ_KSUB) s0 += table[row + codes[co + j]!]!;
  return s0 + s1 + s2 + s3;
}

/** The number of entries of the longest inverted list. */
function longestList({ offsets, nlist }: IvfData): number {
  let longest = 0;
  for (let l = 0; l < nlist; l++) longest = Math.max(longest, offsets[l + 1]! - offsets[l]!);
  return longest;
}
