/** The typed tensors the runtime hands back: float outputs as Float32Array, whatever the graph's float type. */
import type { Tensor } from 'onnxruntime-node';

/** A float tensor, row-major. */
export interface FloatTensor {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

/**
 * A graph output as float32: float32 as it is, float16 and float64 converted (fp16 exports).
 * Throws a TypeError for integer or string outputs.
 *
 * @example
 * const states = toFloatTensor(outputs.last_hidden_state);
 */
export function toFloatTensor(tensor: Tensor): FloatTensor {
  const dims = tensor.dims;
  if (tensor.type === 'float32') return { data: tensor.data as Float32Array, dims };
  if (tensor.type === 'float64')
    return { data: Float32Array.from(tensor.data as Float64Array), dims };
  if (tensor.type === 'float16') return { data: halfToFloat(tensor.data as Uint16Array), dims };
  throw new TypeError(`expected a float output, got ${tensor.type}`);
}

/** IEEE 754 half-precision bits to float32 values. */
function halfToFloat(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i]!;
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const fraction = h & 0x3ff;
    out[i] =
      exponent === 0
        ? sign * 2 ** -14 * (fraction / 1024)
        : exponent === 31
          ? fraction === 0
            ? sign * Infinity
            : NaN
          : sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  }
  return out;
}
