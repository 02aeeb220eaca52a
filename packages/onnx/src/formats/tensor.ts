/**
 * Tensors as the torch and safetensors readers hand them over: an element type, a shape and,
 * for a file read whole, its raw little-endian bytes viewed in the file's buffer (no copy).
 */

export type TensorDtype =
  | 'float64'
  | 'float32'
  | 'float16'
  | 'bfloat16'
  | 'int64'
  | 'int32'
  | 'int16'
  | 'int8'
  | 'uint8'
  | 'bool';

/** Bytes per element of each dtype. */
export const DTYPE_SIZE: Readonly<Record<TensorDtype, number>> = {
  float64: 8,
  float32: 4,
  float16: 2,
  bfloat16: 2,
  int64: 8,
  int32: 4,
  int16: 2,
  int8: 1,
  uint8: 1,
  bool: 1,
};

/** A dense, row-major tensor. `bytes` holds exactly `numel * DTYPE_SIZE[dtype]` bytes. */
export interface Tensor {
  readonly kind: 'tensor';
  readonly dtype: TensorDtype;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

/** True for a {@link Tensor} (as opposed to the other values a pickle may hold). */
export function isTensor(value: unknown): value is Tensor {
  return typeof value === 'object' && value !== null && (value as Tensor).kind === 'tensor';
}

/**
 * The number of elements of a shape (1 for a scalar).
 *
 * @example numel([2, 3]) // 6
 */
export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}
