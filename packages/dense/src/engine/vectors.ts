/** Small vector helpers of the Dense engine: packing, normalising, similarity. */

/** Packs vectors of one dimension into one row-major Float32Array. */
export function packRows(rows: readonly Float32Array[], dim: number): Float32Array {
  const packed = new Float32Array(rows.length * dim);
  rows.forEach((row, i) => packed.set(row, i * dim));
  return packed;
}

/** Scales `vector` to unit length in place (a zero vector stays zero). */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  }
  return vector;
}

export function innerProduct(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  const denominator = Math.sqrt(innerProduct(a, a) * innerProduct(b, b));
  return denominator === 0 ? 0 : innerProduct(a, b) / denominator;
}
