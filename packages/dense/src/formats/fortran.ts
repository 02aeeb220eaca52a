/**
 * Fortran-order (column-major) data to row-major, the only layout the rest of the package
 * handles. Two dimensions (an embedding matrix) take a direct loop; more go through an odometer.
 */
type Buffer = Float32Array | Float64Array | string[];

/** Returns a row-major copy of `data`, laid out column-major for `shape`. */
export function reorderFortran<T extends Buffer>(data: T, shape: readonly number[]): T {
  const out = (
    Array.isArray(data)
      ? new Array<string>(data.length)
      : new (data.constructor as new (n: number) => T)(data.length)
  ) as T;
  const src = data as ArrayLike<unknown> as unknown[];
  const dst = out as ArrayLike<unknown> as unknown[];
  if (shape.length === 2) {
    const rows = shape[0]!;
    const cols = shape[1]!;
    for (let j = 0; j < cols; j++) {
      for (let i = 0; i < rows; i++) dst[i * cols + j] = src[j * rows + i];
    }
    return out;
  }
  // Row-major strides; walk the source in its own (first index fastest) order.
  const strides = shape.map(() => 1);
  for (let k = shape.length - 2; k >= 0; k--) strides[k] = strides[k + 1]! * shape[k + 1]!;
  const index = shape.map(() => 0);
  for (let n = 0; n < data.length; n++) {
    let target = 0;
    for (let k = 0; k < shape.length; k++) target += index[k]! * strides[k]!;
    dst[target] = src[n];
    for (let k = 0; k < shape.length; k++) {
      if (++index[k]! < shape[k]!) break;
      index[k] = 0;
    }
  }
  return out;
}
