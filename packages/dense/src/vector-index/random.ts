export { seededRandom } from 'irserve/plugin';

/** `size` distinct positions of `0..n-1` in increasing order (partial Fisher-Yates). */
export function samplePositions(n: number, size: number, random: () => number): Int32Array {
  if (size >= n) return Int32Array.from({ length: n }, (_, i) => i);
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (n - i));
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  return perm.subarray(0, size).sort();
}

/** Copies the rows at `positions` of an `n * dim` matrix into a new matrix. */
export function gatherRows(data: Float32Array, dim: number, positions: Int32Array): Float32Array {
  const out = new Float32Array(positions.length * dim);
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    out.set(data.subarray(p * dim, (p + 1) * dim), i * dim);
  }
  return out;
}
