/**
 * Conversions of the tensors the readers hand over (raw little-endian bytes viewed in the file's
 * buffer, an element type and a shape) to the typed arrays the index uses; they check shape and
 * range and name the file on failure.
 */
import { decodeFloat16, FormatError } from '@irserve/dense';
import { DTYPE_SIZE, type Tensor } from '@irserve/onnx/formats';

export { DTYPE_SIZE, isTensor, numel, type Tensor, type TensorDtype } from '@irserve/onnx/formats';

/** Throws unless `tensor` has `rank` dimensions (and the given sizes, where not undefined). */
export function expectShape(
  tensor: { readonly shape: readonly number[] },
  expected: readonly (number | undefined)[],
  file: string,
  what: string,
): void {
  const ok =
    tensor.shape.length === expected.length &&
    expected.every((size, i) => size === undefined || size === tensor.shape[i]);
  if (!ok) {
    const want = expected.map((s) => s ?? '*').join(', ');
    throw new FormatError(
      file,
      `${what}: expected shape (${want}), got (${tensor.shape.join(', ')})`,
    );
  }
}

/** A typed view of `bytes` when they are aligned for `size`-byte elements, else of a copy. */
function view<T>(
  bytes: Uint8Array,
  size: number,
  make: (buffer: ArrayBuffer, offset: number, length: number) => T,
): T {
  const source = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  return make(source.buffer as ArrayBuffer, source.byteOffset, source.byteLength / size);
}

/** The values as float32 (a view for float32 data, a converted copy otherwise). */
export function toFloat32(tensor: Tensor, file: string): Float32Array {
  const { bytes } = tensor;
  switch (tensor.dtype) {
    case 'float32':
      return view(bytes, 4, (b, o, n) => new Float32Array(b, o, n));
    case 'float16':
      return decodeFloat16(view(bytes, 2, (b, o, n) => new Uint16Array(b, o, n)));
    case 'bfloat16': {
      const bits = view(bytes, 2, (b, o, n) => new Uint16Array(b, o, n));
      const out = new Float32Array(bits.length);
      const widened = new Uint32Array(out.buffer);
      for (let i = 0; i < bits.length; i++) widened[i] = bits[i]! << 16;
      return out;
    }
    case 'float64':
      return Float32Array.from(view(bytes, 8, (b, o, n) => new Float64Array(b, o, n)));
    case 'int64':
    case 'int32':
    case 'int16':
    case 'int8':
    case 'uint8':
    case 'bool':
      throw new FormatError(file, `expected a floating-point tensor, got ${tensor.dtype}`);
  }
}

/** The values as int32 (a view for int32 data); int64 values must fit, or the file is refused. */
export function toInt32(tensor: Tensor, file: string): Int32Array {
  if (tensor.dtype === 'int32') return view(tensor.bytes, 4, (b, o, n) => new Int32Array(b, o, n));
  const out = new Int32Array(tensor.bytes.byteLength / DTYPE_SIZE[tensor.dtype]);
  int32Into(tensor, file, out, 0);
  return out;
}

/**
 * Writes the values of an integer tensor into `out` from position `at` (a slice of a larger
 * array read a piece at a time); an int64 value that does not fit in int32 is refused naming
 * the value and its position in `out`.
 */
export function int32Into(tensor: Tensor, file: string, out: Int32Array, at: number): void {
  const { bytes } = tensor;
  switch (tensor.dtype) {
    case 'int32':
      return out.set(
        view(bytes, 4, (b, o, n) => new Int32Array(b, o, n)),
        at,
      );
    case 'int64': {
      // Read as two 32-bit halves: far faster than BigInt conversion per element.
      const halves = view(bytes, 8, (b, o, n) => new Int32Array(b, o, n * 2));
      const count = halves.length / 2;
      for (let i = 0; i < count; i++) {
        const low = halves[2 * i]!;
        if (halves[2 * i + 1] !== low >> 31) {
          const value = new BigInt64Array(halves.buffer, halves.byteOffset + 8 * i, 1)[0];
          throw new FormatError(
            file,
            `int64 value ${value} at position ${at + i} does not fit in int32`,
          );
        }
        out[at + i] = low;
      }
      return;
    }
    case 'int16':
      return out.set(
        view(bytes, 2, (b, o, n) => new Int16Array(b, o, n)),
        at,
      );
    case 'uint8':
      return out.set(bytes, at);
    case 'int8':
      return out.set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), at);
    case 'float64':
    case 'float32':
    case 'float16':
    case 'bfloat16':
    case 'bool':
      throw new FormatError(file, `expected an integer tensor, got ${tensor.dtype}`);
  }
}

/** The raw bytes of a uint8 tensor. */
export function toUint8(tensor: Tensor, file: string): Uint8Array {
  if (tensor.dtype !== 'uint8')
    throw new FormatError(file, `expected a uint8 tensor, got ${tensor.dtype}`);
  return tensor.bytes;
}
