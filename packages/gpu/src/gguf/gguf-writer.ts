/**
 * A GGUF v3 writer: header, metadata key/values, tensor infos, aligned tensor data. Enough to
 * write small llama.cpp models (f32 tensors) from TypeScript, as the test fixtures'
 * generator does; irserve itself only reads GGUF files (through node-llama-cpp).
 */
/** A metadata value; arrays hold one type. `u32`, `i32`, `f32` wrap numbers of those types. */
export type GgufValue =
  | string
  | boolean
  | { u32: number }
  | { i32: number }
  | { f32: number }
  | { strings: readonly string[] }
  | { i32s: readonly number[] }
  | { f32s: readonly number[] };

/** A tensor: `dims` innermost first (GGUF's `ne` order), values row-major in that order. */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  values: Float32Array;
}

const ALIGNMENT = 32;
const TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;
const F32 = 0;

class Bytes {
  readonly parts: Uint8Array[] = [];
  length = 0;

  push(part: Uint8Array): void {
    this.parts.push(part);
    this.length += part.length;
  }
  u32(value: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value, true);
    this.push(b);
  }
  i32(value: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, value, true);
    this.push(b);
  }
  u64(value: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(value), true);
    this.push(b);
  }
  f32(value: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
  }
  string(value: string): void {
    const utf8 = new TextEncoder().encode(value);
    this.u64(utf8.length);
    this.push(utf8);
  }
  pad(to: number): void {
    const rest = (to - (this.length % to)) % to;
    if (rest > 0) this.push(new Uint8Array(rest));
  }
}

function writeValue(out: Bytes, value: GgufValue): void {
  if (typeof value === 'string') return (out.u32(TYPE.string), out.string(value));
  if (typeof value === 'boolean') return (out.u32(TYPE.bool), out.push(Uint8Array.of(+value)));
  if ('u32' in value) return (out.u32(TYPE.u32), out.u32(value.u32));
  if ('i32' in value) return (out.u32(TYPE.i32), out.i32(value.i32));
  if ('f32' in value) return (out.u32(TYPE.f32), out.f32(value.f32));
  out.u32(TYPE.array);
  if ('strings' in value) {
    out.u32(TYPE.string);
    out.u64(value.strings.length);
    value.strings.forEach((s) => out.string(s));
  } else if ('i32s' in value) {
    out.u32(TYPE.i32);
    out.u64(value.i32s.length);
    value.i32s.forEach((n) => out.i32(n));
  } else {
    out.u32(TYPE.f32);
    out.u64(value.f32s.length);
    value.f32s.forEach((n) => out.f32(n));
  }
}

function tensorBytes(tensor: GgufTensor): Uint8Array {
  const expected = tensor.dims.reduce((a, b) => a * b, 1);
  if (tensor.values.length !== expected)
    throw new RangeError(
      `${tensor.name}: ${tensor.values.length} values for dims [${tensor.dims.join(', ')}]`,
    );
  return new Uint8Array(tensor.values.slice().buffer);
}

/**
 * The bytes of a GGUF v3 file.
 *
 * @example
 * const bytes = writeGguf({ 'general.architecture': 'bert' }, [{ name: 'w', dims: [4], values: new Float32Array(4) }]);
 */
export function writeGguf(metadata: Record<string, GgufValue>, tensors: GgufTensor[]): Uint8Array {
  const out = new Bytes();
  out.push(new TextEncoder().encode('GGUF'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    out.string(key);
    writeValue(out, value);
  }
  const data = tensors.map(tensorBytes);
  let offset = 0;
  tensors.forEach((tensor, i) => {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    tensor.dims.forEach((d) => out.u64(d));
    out.u32(F32);
    out.u64(offset);
    offset += Math.ceil(data[i]!.length / ALIGNMENT) * ALIGNMENT;
  });
  out.pad(ALIGNMENT);
  for (const bytes of data) {
    out.push(bytes);
    out.pad(ALIGNMENT);
  }
  const file = new Uint8Array(out.length);
  let at = 0;
  for (const part of out.parts) {
    file.set(part, at);
    at += part.length;
  }
  return file;
}
