/**
 * Conversions of the tensors the readers hand over (raw little-endian bytes viewed in the file's
 * buffer, an element type and a shape) to the typed arrays the index uses; they check shape and
 * range and name the file on failure.
 */
import { decodeFloat16, FormatError } from '@irserve/dense';
import type { Tensor } from '@irserve/onnx/formats';

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
  const { bytes } = tensor;
  switch (tensor.dtype) {
    case 'int32':
      return view(bytes, 4, (b, o, n) => new Int32Array(b, o, n));
    case 'int64': {
      const wide = view(bytes, 8, (b, o, n) => new BigInt64Array(b, o, n));
      const out = new Int32Array(wide.length);
      // Read as two 32-bit halves: far faster than BigInt conversion per element.
      const halves = new Int32Array(wide.buffer, wide.byteOffset, wide.length * 2);
      for (let i = 0; i < out.length; i++) {
        const low = halves[2 * i]!;
        const high = halves[2 * i + 1]!;
        if (high !== (low < 0 ? -1 : 0))
          throw new FormatError(file, `int64 value at position ${i} does not fit in int32`);
        out[i] = low;
      }
      return out;
    }
    case 'int16':
      return Int32Array.from(view(bytes, 2, (b, o, n) => new Int16Array(b, o, n)));
    case 'uint8':
    case 'int8':
      return Int32Array.from(
        tensor.dtype === 'uint8'
          ? bytes
          : new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      );
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
