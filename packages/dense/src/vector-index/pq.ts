import { kmeans } from './kmeans.js';
import { PqEncodeKernel } from './simd/pq-encode-kernel.js';
import type { Metric } from './types.js';

/** 8-bit codes: 256 centroids per sub-quantizer. */
export const PQ_KSUB = 256;

/** A product quantizer: `m` sub-spaces of `dsub` dims, each with 256 centroids. */
export interface ProductQuantizer {
  m: number;
  dsub: number;
  /** `m * 256 * dsub` floats: sub-quantizer j's centroid c starts at `(j * 256 + c) * dsub`. */
  codebooks: Float32Array;
}

/** Copies columns `[j*dsub, (j+1)*dsub)` of an `n * dim` matrix into an `n * dsub` one. */
export function subspace(data: Float32Array, dim: number, dsub: number, j: number): Float32Array {
  const n = data.length / dim;
  const out = new Float32Array(n * dsub);
  for (let i = 0; i < n; i++)
    out.set(data.subarray(i * dim + j * dsub, i * dim + (j + 1) * dsub), i * dsub);
  return out;
}

/** Trains one 256-centroid k-means per sub-space (faiss's ProductQuantizer, 8 bits). */
export function trainPq(
  data: Float32Array,
  dim: number,
  m: number,
  options: {
    seed?: number;
    iterations?: number;
    threads?: number;
    onSubspace?: (j: number) => void;
  },
): ProductQuantizer {
  if (dim % m !== 0) throw new Error(`PQ${m}: the dimension ${dim} is not a multiple of ${m}`);
  const dsub = dim / m;
  const n = data.length / dim;
  if (n < PQ_KSUB) {
    throw new Error(`PQ training needs at least ${PQ_KSUB} vectors, got ${n}`);
  }
  const codebooks = new Float32Array(m * PQ_KSUB * dsub);
  for (let j = 0; j < m; j++) {
    const sub = subspace(data, dim, dsub, j);
    const seed = (options.seed ?? 1234) + j;
    const centroids = kmeans(sub, dsub, PQ_KSUB, { ...options, seed, metric: 'l2' });
    codebooks.set(centroids, j * PQ_KSUB * dsub);
    options.onSubspace?.(j + 1);
  }
  return { m, dsub, codebooks };
}

/**
 * Encodes `n * dim` vectors to `n * m` bytes: the nearest centroid per sub-space, by the
 * WebAssembly kernel (the same codes as an exhaustive search over each sub-space's centroids).
 * One thread: builders spread chunks over threads. With `residualTo`, encodes each row minus
 * its centroid (IVF-PQ's residuals) without a copy of the residuals.
 */
export function encodePq(
  pq: ProductQuantizer,
  data: Float32Array,
  residualTo?: { labels: Int32Array; centroids: Float32Array },
): Uint8Array {
  return new PqEncodeKernel(pq.m, pq.dsub, pq.codebooks).encode(data, residualTo);
}

/**
 * The ADC lookup table for one query (at `qo` in `q`): entry `j * 256 + c` is the inner
 * product (ip) or the squared distance (l2) between sub-vector j and centroid c.
 */
export function adcTable(
  pq: ProductQuantizer,
  metric: Metric,
  q: Float32Array,
  qo: number,
  out: Float32Array,
): Float32Array {
  const { m, dsub, codebooks } = pq;
  for (let j = 0; j < m; j++) {
    const qs = qo + j * dsub;
    for (let c = 0; c < PQ_KSUB; c++) {
      const co = (j * PQ_KSUB + c) * dsub;
      let s = 0;
      for (let t = 0; t < dsub; t++) {
        const a = q[qs + t]!;
        const b = codebooks[co + t]!;
        s += metric === 'ip' ? a * b : (a - b) * (a - b);
      }
      out[j * PQ_KSUB + c] = s;
    }
  }
  return out;
}

/** Reconstructs the vector encoded at row `row` of `codes` (a code's bytes: row 0). */
export function decodePq(pq: ProductQuantizer, codes: Uint8Array, row: number): Float32Array {
  const out = new Float32Array(pq.m * pq.dsub);
  for (let j = 0; j < pq.m; j++) {
    const c = codes[row * pq.m + j]!;
    const start = (j * PQ_KSUB + c) * pq.dsub;
    out.set(pq.codebooks.subarray(start, start + pq.dsub), j * pq.dsub);
  }
  return out;
}
