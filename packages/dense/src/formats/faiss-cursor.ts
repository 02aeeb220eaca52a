/**
 * Bounds-checked reads of FAISS's binary layout: native little-endian scalars, and vectors as
 * a uint64 element count followed by the elements. Every count is checked against the bytes
 * left before anything is allocated, so a corrupt count fails fast instead of exhausting memory.
 */
import { FormatError } from './errors.js';

export class FaissCursor {
  at = 0;
  readonly #view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(reason: string): never {
    throw new FormatError(this.file, `${reason} (byte ${this.at})`);
  }

  #advance(n: number): number {
    if (!Number.isSafeInteger(n) || n < 0 || this.at + n > this.bytes.byteLength) {
      this.fail(`truncated FAISS index: ${n} more bytes needed`);
    }
    const start = this.at;
    this.at += n;
    return start;
  }

  u8(): number {
    return this.#view.getUint8(this.#advance(1));
  }

  i32(): number {
    return this.#view.getInt32(this.#advance(4), true);
  }

  f32(): number {
    return this.#view.getFloat32(this.#advance(4), true);
  }

  /** A 64-bit integer (idx_t or size_t) as a number; past 2^53 it cannot be a real count. */
  i64(): number {
    const value = Number(this.#view.getBigInt64(this.#advance(8), true));
    if (!Number.isSafeInteger(value)) this.fail('64-bit integer out of range');
    return value;
  }

  /** Four ASCII characters identifying an index or list type ("IxFI", "ilar"...). */
  fourcc(): string {
    const start = this.#advance(4);
    const codes = Array.from(this.bytes.subarray(start, start + 4));
    const printable = codes.every((c) => c >= 0x20 && c < 0x7f);
    return printable
      ? String.fromCharCode(...codes)
      : `0x${codes.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  }

  /** The element count of a vector of `size`-byte elements, checked against the input. */
  count(size: number): number {
    const n = this.i64();
    if (n < 0 || n * size > this.bytes.byteLength - this.at)
      this.fail(`vector of ${n} elements overruns the file`);
    return n;
  }

  /** `n * size` raw bytes copied into a fresh, aligned buffer. */
  raw(n: number, size: number): ArrayBuffer {
    const start = this.#advance(n * size);
    return this.bytes.slice(start, start + n * size).buffer;
  }

  floats(): Float32Array {
    const n = this.count(4);
    return new Float32Array(this.raw(n, 4));
  }

  /** n float32 values without a count prefix (inverted-list codes). */
  floatsN(n: number): Float32Array {
    return new Float32Array(this.raw(n, 4));
  }

  float64s(): Float64Array {
    const n = this.count(8);
    return new Float64Array(this.raw(n, 8));
  }

  int32s(): Int32Array {
    const n = this.count(4);
    return new Int32Array(this.raw(n, 4));
  }

  /** A vector of idx_t or size_t, widened to doubles (exact below 2^53, checked). */
  int64s(): Float64Array {
    return this.int64sN(this.count(8));
  }

  int64sN(n: number): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = this.i64();
    return out;
  }
}
