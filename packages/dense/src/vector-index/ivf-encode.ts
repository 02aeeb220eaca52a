/**
 * Encoding IVF entries: a vector's residual to its list's centroid in PQ or a scalar quantizer,
 * or the float32 vector itself. Shared by the in-memory build, the streamed build and its
 * worker threads (so nothing here loads usearch, which worker threads cannot).
 */
import { assign } from './kmeans.js';
import { encodePq, type ProductQuantizer } from './pq.js';
import type { RowCodec } from './row-codec.js';
import type { Metric } from './types.js';

/** What an IVF stores per entry: a vector in a row codec, or a PQ code. */
export type IvfEncoding =
  { codec: RowCodec; pq?: undefined } | { pq: ProductQuantizer; codec?: undefined };

/**
 * Whether entries are stored as residuals to their list's centroid: PQ and the scalar
 * quantizers are (as faiss's IVFPQ and IVFSQ, `by_residual`), float32 vectors are not.
 */
export function storesResiduals(data: { codec?: RowCodec; pq?: ProductQuantizer }): boolean {
  return data.pq !== undefined || data.codec?.storage !== 'f32';
}

/** Bytes each entry takes. */
export function entryBytes(encoding: IvfEncoding): number {
  return encoding.pq ? encoding.pq.m : encoding.codec.rowBytes;
}

/** Each row minus its nearest centroid (faiss's IVFPQ encodes residuals). */
export function residuals(
  data: Float32Array,
  centroids: Float32Array,
  dim: number,
  metric: Metric,
  threads: number,
  labels = assign(centroids, data, dim, metric, threads),
): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < labels.length; i++) {
    const c = labels[i]! * dim;
    for (let j = 0; j < dim; j++) out[i * dim + j] = data[i * dim + j]! - centroids[c + j]!;
  }
  return out;
}

/**
 * Encodes `chunk`'s vectors, assigned to `labels`, into entries (`entryBytes` each, in order),
 * on this thread.
 */
export function encodeEntries(
  chunk: Float32Array,
  labels: Int32Array,
  centroids: Float32Array,
  dim: number,
  metric: Metric,
  encoding: IvfEncoding,
): Uint8Array {
  if (encoding.pq) return encodePq(encoding.pq, chunk, { labels, centroids });
  const byResidual = storesResiduals(encoding);
  const input = byResidual ? residuals(chunk, centroids, dim, metric, 1, labels) : chunk;
  const out = new Uint8Array((chunk.length / dim) * encoding.codec.rowBytes);
  encoding.codec.encode(input, out, 0);
  return out;
}
