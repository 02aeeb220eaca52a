/**
 * How an index stores its vectors, row by row: float32 (`Flat`), float16 (`SQfp16`) or one
 * byte per dimension (`SQ8`, faiss's per-dimension scalar quantizer). A codec encodes float
 * rows to bytes, decodes them back, and scores a query against stored rows without decoding
 * them into a float matrix first. Scores are higher-is-better: the inner product, or the
 * negative squared distance, both against the decoded vector.
 */
import { float16Table, toFloat16Bits } from '../formats/float16.js';
import { dot, l2sq } from './kernels.js';
import { sq8Decode, sq8Encode, sq8Scorer } from './scalar-quantizer.js';
import type { Metric, RowScorer } from './types.js';

export type { RowScorer } from './types.js';

export type RowStorage = 'f32' | 'f16' | 'sq8';

export interface RowCodec {
  readonly storage: RowStorage;
  readonly dim: number;
  /** Bytes per stored row. */
  readonly rowBytes: number;
  /** SQ8: `dim` minimums then `dim` widths (see scalar-quantizer.ts). */
  readonly ranges?: Float32Array;
  /** Encodes `vectors` (whole rows of `dim` floats) into `out` from byte `at`. */
  encode(vectors: Float32Array, out: Uint8Array, at: number): void;
  /** Decodes the row `byteOffset` bytes into `bytes` into `out` from `outOffset`. */
  decode(bytes: Uint8Array, byteOffset: number, out: Float32Array, outOffset: number): void;
  /** A scorer for the query at `qo` in `queries` (its floats are copied: `queries` may change). */
  scorer(queries: Float32Array, qo: number, metric: Metric): RowScorer;
}

/** Bytes per dimension of each storage. */
export const STORAGE_BYTES: Record<RowStorage, number> = { f32: 4, f16: 2, sq8: 1 };

/** The file-name extension of each storage (`vectors.f16`, `list-vectors.sq8`, ...). */
export const STORAGE_EXTENSION: Record<RowStorage, string> = { f32: 'f32', f16: 'f16', sq8: 'sq8' };

/**
 * The codec of `storage`; SQ8 needs the per-dimension `ranges` (`trainSq8Ranges`).
 *
 * @example rowCodec('f16', 768).rowBytes // 1536
 */
export function rowCodec(storage: RowStorage, dim: number, ranges?: Float32Array): RowCodec {
  switch (storage) {
    case 'f32':
      return f32Codec(dim);
    case 'f16':
      return f16Codec(dim);
    case 'sq8':
      if (!ranges || ranges.length !== 2 * dim)
        throw new Error(`SQ8 storage needs ${2 * dim} range values (min and width per dimension)`);
      return sq8Codec(dim, ranges);
  }
}

/** Floats of `count` rows at `byteOffset`; copied when the offset is not 4-byte aligned. */
function floatRows(bytes: Uint8Array, byteOffset: number, floats: number): Float32Array {
  const at = bytes.byteOffset + byteOffset;
  if (at % 4 === 0) return new Float32Array(bytes.buffer, at, floats);
  return new Float32Array(bytes.slice(byteOffset, byteOffset + floats * 4).buffer);
}

function f32Codec(dim: number): RowCodec {
  return {
    storage: 'f32',
    dim,
    rowBytes: dim * 4,
    encode(vectors, out, at) {
      out.set(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength), at);
    },
    decode(bytes, byteOffset, out, outOffset) {
      out.set(floatRows(bytes, byteOffset, dim), outOffset);
    },
    scorer(queries, qo, metric) {
      const q = queries.slice(qo, qo + dim);
      return (bytes, byteOffset, count, out) => {
        const rows = floatRows(bytes, byteOffset, count * dim);
        for (let i = 0; i < count; i++)
          out[i] =
            metric === 'ip' ? dot(q, 0, rows, i * dim, dim) : -l2sq(q, 0, rows, i * dim, dim);
      };
    },
  };
}

/** Half-precision halves of `count` rows at `byteOffset`; copied when not 2-byte aligned. */
function halfRows(bytes: Uint8Array, byteOffset: number, halves: number): Uint16Array {
  const at = bytes.byteOffset + byteOffset;
  if (at % 2 === 0) return new Uint16Array(bytes.buffer, at, halves);
  return new Uint16Array(bytes.slice(byteOffset, byteOffset + halves * 2).buffer);
}

function f16Codec(dim: number): RowCodec {
  // One table per codec (256 KiB), shared by every scorer it makes.
  const table = float16Table();
  return {
    storage: 'f16',
    dim,
    rowBytes: dim * 2,
    encode(vectors, out, at) {
      const bits = toFloat16Bits(vectors);
      out.set(new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength), at);
    },
    decode(bytes, byteOffset, out, outOffset) {
      const halves = halfRows(bytes, byteOffset, dim);
      for (let j = 0; j < dim; j++) out[outOffset + j] = table[halves[j]!]!;
    },
    scorer(queries, qo, metric) {
      const q = queries.slice(qo, qo + dim);
      return (bytes, byteOffset, count, out) => {
        const halves = halfRows(bytes, byteOffset, count * dim);
        for (let i = 0; i < count; i++)
          out[i] =
            metric === 'ip'
              ? halfDot(q, table, halves, i * dim, dim)
              : -halfL2(q, table, halves, i * dim, dim);
      };
    },
  };
}

/** q · decoded row, four partial sums (see kernels.ts). */
function halfDot(q: Float32Array, table: Float32Array, h: Uint16Array, ho: number, dim: number) {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    s0 += q[j]! * table[h[ho + j]!]!;
    s1 += q[j + 1]! * table[h[ho + j + 1]!]!;
    s2 += q[j + 2]! * table[h[ho + j + 2]!]!;
    s3 += q[j + 3]! * table[h[ho + j + 3]!]!;
  }
  for (; j < dim; j++) s0 += q[j]! * table[h[ho + j]!]!;
  return s0 + s1 + s2 + s3;
}

/** |q - decoded row|². */
function halfL2(q: Float32Array, table: Float32Array, h: Uint16Array, ho: number, dim: number) {
  let s0 = 0;
  let s1 = 0;
  let j = 0;
  for (; j + 1 < dim; j += 2) {
    const d0 = q[j]! - table[h[ho + j]!]!;
    const d1 = q[j + 1]! - table[h[ho + j + 1]!]!;
    s0 += d0 * d0;
    s1 += d1 * d1;
  }
  for (; j < dim; j++) {
    const d = q[j]! - table[h[ho + j]!]!;
    s0 += d * d;
  }
  return s0 + s1;
}

function sq8Codec(dim: number, ranges: Float32Array): RowCodec {
  return {
    storage: 'sq8',
    dim,
    rowBytes: dim,
    ranges,
    encode: (vectors, out, at) => sq8Encode(ranges, dim, vectors, out, at),
    decode: (bytes, byteOffset, out, outOffset) =>
      sq8Decode(ranges, dim, bytes, byteOffset, out, outOffset),
    scorer: (queries, qo, metric) => sq8Scorer(ranges, dim, queries, qo, metric),
  };
}
