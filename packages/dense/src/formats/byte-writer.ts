/** A growable byte buffer for small binary encodings (pickle skeletons, headers). */
export class ByteWriter {
  #bytes = new Uint8Array(256);
  #view = new DataView(this.#bytes.buffer);
  #length = 0;
  readonly #utf8 = new TextEncoder();

  /** Reserves `extra` bytes and returns where they start. Call it before touching the view. */
  #ensure(extra: number): number {
    const at = this.#length;
    if (at + extra > this.#bytes.byteLength) {
      const grown = new Uint8Array(Math.max(this.#bytes.byteLength * 2, at + extra));
      grown.set(this.#bytes.subarray(0, at));
      this.#bytes = grown;
      this.#view = new DataView(grown.buffer);
    }
    this.#length += extra;
    return at;
  }

  u8(...values: number[]): this {
    const at = this.#ensure(values.length);
    this.#bytes.set(values, at);
    return this;
  }

  i32(value: number): this {
    const at = this.#ensure(4);
    this.#view.setInt32(at, value, true);
    return this;
  }

  u32(value: number): this {
    const at = this.#ensure(4);
    this.#view.setUint32(at, value, true);
    return this;
  }

  u64(value: number): this {
    const at = this.#ensure(8);
    this.#view.setBigUint64(at, BigInt(value), true);
    return this;
  }

  bytes(data: Uint8Array): this {
    const at = this.#ensure(data.byteLength);
    this.#bytes.set(data, at);
    return this;
  }

  utf8(text: string): Uint8Array {
    return this.#utf8.encode(text);
  }

  /** The bytes written so far (a copy-free view; do not write after taking it). */
  result(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }
}
