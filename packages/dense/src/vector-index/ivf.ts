import { FlatIndex } from './flat.js';
import { dot, similarity } from './kernels.js';
import { adcTable, decodePq, PQ_KSUB, type ProductQuantizer } from './pq.js';
import { AdcKernel } from './simd/adc-kernel.js';
import { TopK } from './top-k.js';
import {
  checkQueries,
  emptyResult,
  type Metric,
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
  /** IVF-Flat: `count * dim` floats in list order. */
  vectors?: Float32Array;
  /** IVF-PQ: residual codes, `count * m` bytes in list order, and their quantizer. */
  pq?: ProductQuantizer;
  codes?: Uint8Array;
  factory: string;
  /** Lists scanned per query unless a search says otherwise (faiss: 1). */
  nprobe: number;
}

/** IVF-Flat and IVF-PQ search: coarse lists by exact search over the centroids, list scans in JS. */
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
  #slots: Int32Array | undefined;

  constructor(data: IvfData) {
    if (!data.vectors === !data.codes) throw new Error('an IVF index holds vectors or PQ codes');
    this.data = data;
    this.#coarse = new FlatIndex(data.centroids, data.dim, data.metric, { threads: 1 });
    this.#adc = data.pq && data.pq.m % 4 === 0 ? new AdcKernel(data.pq.m, longestList(data)) : null;
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
    const top = new TopK(k);
    const scratch = new Float32Array(this.data.pq ? this.data.pq.m * PQ_KSUB : 0);
    const residual = new Float32Array(dim);
    for (let q = 0; q < n; q++) {
      for (let p = 0; p < nprobe; p++) {
        const list = coarse[q * nprobe + p]!;
        if (this.data.vectors) this.#scanFlat(queries, q * dim, list, top);
        else this.#scanPq(queries, q * dim, list, top, scratch, residual, p === 0);
      }
      top.drainInto(result.labels, result.scores, q * k);
    }
    return result;
  }

  #scanFlat(queries: Float32Array, qo: number, list: number, top: TopK): void {
    const { offsets, ids, dim, metric } = this.data;
    const vectors = this.data.vectors!;
    const end = offsets[list + 1]!;
    for (let e = offsets[list]!; e < end; e++) {
      const s = similarity(metric, queries, qo, vectors, e * dim, dim);
      if (s > top.threshold) top.push(s, ids[e]!);
    }
  }

  /**
   * faiss's residual ADC: for ip, q.(c + r) = q.c + sum of per-query table entries (the table
   * is built once per query); for l2 the table is for q - c and is rebuilt per list.
   */
  #scanPq(
    queries: Float32Array,
    qo: number,
    list: number,
    top: TopK,
    table: Float32Array,
    residual: Float32Array,
    firstList: boolean,
  ): void {
    const { offsets, ids, dim, metric, centroids } = this.data;
    const pq = this.data.pq!;
    const codes = this.data.codes!;
    const m = pq.m;
    let base = 0;
    if (metric === 'ip') {
      if (firstList) adcTable(pq, 'ip', queries, qo, table);
      base = dot(queries, qo, centroids, list * dim, dim);
    } else {
      for (let j = 0; j < dim; j++) residual[j] = queries[qo + j]! - centroids[list * dim + j]!;
      adcTable(pq, 'l2', residual, 0, table);
    }
    const sign = metric === 'ip' ? 1 : -1;
    const first = offsets[list]!;
    const count = offsets[list + 1]! - first;
    if (this.#adc && (metric === 'l2' || firstList)) this.#adc.setTable(table);
    const sums = this.#adc?.scan(codes, first, count);
    let threshold = top.threshold;
    for (let i = 0; i < count; i++) {
      const e = first + i;
      const score = base + sign * (sums ? sums[i]! : adcSum(table, codes, e * m, m));
      if (score > threshold) {
        top.push(score, ids[e]!);
        threshold = top.threshold;
      }
    }
  }

  /** The stored vector (IVF-Flat) or its reconstruction, centroid plus decoded residual (PQ). */
  vector(position: number): Float32Array {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0..${this.count - 1}`);
    }
    const slot = this.#slotOf(position);
    const { dim } = this.data;
    if (this.data.vectors) return this.data.vectors.subarray(slot * dim, (slot + 1) * dim);
    const out = decodePq(this.data.pq!, this.data.codes!, slot);
    const list = this.#listOf(slot);
    for (let j = 0; j < dim; j++) out[j]! += this.data.centroids[list * dim + j]!;
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
