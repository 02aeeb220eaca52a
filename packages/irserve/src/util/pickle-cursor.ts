/** Bounds-checked little-endian reads over pickle bytes; every overrun names the file. */
import { FormatError } from './format-error.js';

export class PickleCursor {
  at = 0;
  readonly #view: DataView;
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  done(): boolean {
    return this.at >= this.bytes.byteLength;
  }

  /** Moves past `n` bytes and returns where they started, or throws on truncation. */
  #advance(n: number): number {
    if (!Number.isSafeInteger(n) || n < 0 || this.at + n > this.bytes.byteLength) {
      throw new FormatError(this.file, `truncated pickle: ${n} bytes needed at byte ${this.at}`);
    }
    const start = this.at;
    this.at += n;
    return start;
  }

  u8(): number {
    return this.#view.getUint8(this.#advance(1));
  }

  u16(): number {
    return this.#view.getUint16(this.#advance(2), true);
  }

  i32(): number {
    return this.#view.getInt32(this.#advance(4), true);
  }

  u32(): number {
    return this.#view.getUint32(this.#advance(4), true);
  }

  /** An unsigned 64-bit length; anything past 2^53 is necessarily beyond the input. */
  u64(): number {
    const value = Number(this.#view.getBigUint64(this.#advance(8), true));
    return Number.isSafeInteger(value) ? value : Number.MAX_SAFE_INTEGER;
  }

  f64be(): number {
    return this.#view.getFloat64(this.#advance(8), false);
  }

  /** `n` bytes, viewed in place (no copy). */
  take(n: number): Uint8Array {
    const start = this.#advance(n);
    return this.bytes.subarray(start, start + n);
  }

  utf8(n: number): string {
    const bytes = this.take(n);
    try {
      return this.#utf8.decode(bytes);
    } catch {
      throw new FormatError(this.file, `invalid UTF-8 string in pickle at byte ${this.at - n}`);
    }
  }

  latin1(n: number): string {
    const bytes = this.take(n);
    let out = '';
    for (let i = 0; i < bytes.length; i += 8192) {
      out += String.fromCharCode(...bytes.subarray(i, i + 8192));
    }
    return out;
  }

  /** A newline-terminated ASCII line (GLOBAL operands, text PUT/GET), at most 256 bytes. */
  line(): string {
    // Search a bounded window: a scan to the end per opcode would be quadratic on hostile input.
    const found = this.bytes.subarray(this.at, this.at + 257).indexOf(0x0a);
    const end = this.at + found;
    if (found < 0) {
      throw new FormatError(this.file, `bad text operand in pickle at byte ${this.at}`);
    }
    const text = this.latin1(end - this.at);
    this.at++;
    return text;
  }

  /** A little-endian two's-complement integer of `n` bytes (LONG1 / LONG4). */
  long(n: number): number | bigint {
    if (n > 64) throw new FormatError(this.file, `pickle integer of ${n} bytes is too large`);
    const bytes = this.take(n);
    let value = 0n;
    for (let i = n - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
    if (n > 0 && bytes[n - 1]! >= 0x80) value -= 1n << BigInt(8 * n);
    const small = Number(value);
    return Number.isSafeInteger(small) ? small : value;
  }
}
