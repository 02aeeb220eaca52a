/**
 * The protobuf encodings an ONNX model file needs: varints, fixed 32-bit floats, strings, bytes
 * and nested messages. Parts are kept as chunks and joined once, so a message holding a large
 * inline tensor is copied once, not once per nesting level.
 */

const utf8 = new TextEncoder();

/** A message under construction: fields appended in order. */
export class Message {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  #push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#length += chunk.byteLength;
  }

  #varint(value: number | bigint): void {
    let v = BigInt(value);
    if (v < 0n) v += 1n << 64n;
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v > 0n);
    this.#push(Uint8Array.from(bytes));
  }

  #key(field: number, wire: number): void {
    this.#varint((field << 3) | wire);
  }

  /** A varint field (int32, int64, enum, bool). */
  int(field: number, value: number | bigint): this {
    this.#key(field, 0);
    this.#varint(value);
    return this;
  }

  /** A 32-bit float field. */
  float(field: number, value: number): this {
    this.#key(field, 5);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.#push(bytes);
    return this;
  }

  /** A length-delimited field: bytes, a string or a nested message. */
  bytes(field: number, value: Uint8Array | string | Message): this {
    this.#key(field, 2);
    if (value instanceof Message) {
      this.#varint(value.#length);
      for (const chunk of value.#chunks) this.#push(chunk);
    } else {
      const data = typeof value === 'string' ? utf8.encode(value) : value;
      this.#varint(data.byteLength);
      this.#push(data);
    }
    return this;
  }

  /** A packed repeated varint field. */
  packed(field: number, values: readonly (number | bigint)[]): this {
    const inner = new Message();
    for (const value of values) inner.#varint(value);
    return this.bytes(field, inner);
  }

  get length(): number {
    return this.#length;
  }

  toBytes(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out;
  }
}
