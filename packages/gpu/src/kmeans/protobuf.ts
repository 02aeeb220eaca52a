/** The few protobuf encodings an ONNX model file needs: varints, strings, nested messages. */

/** A message under construction: fields appended in order. */
export class Message {
  readonly #parts: number[] = [];

  #varint(value: number | bigint): void {
    let v = BigInt(value);
    if (v < 0n) v += 1n << 64n;
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) byte |= 0x80;
      this.#parts.push(byte);
    } while (v > 0n);
  }

  /** A varint field (int32, int64, enum). */
  int(field: number, value: number): this {
    this.#varint((field << 3) | 0);
    this.#varint(value);
    return this;
  }

  /** A length-delimited field: bytes, a string or a nested message. */
  bytes(field: number, value: Uint8Array | string | Message): this {
    const data =
      typeof value === 'string'
        ? new TextEncoder().encode(value)
        : value instanceof Message
          ? value.toBytes()
          : value;
    this.#varint((field << 3) | 2);
    this.#varint(data.length);
    for (const b of data) this.#parts.push(b);
    return this;
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.#parts);
  }
}
