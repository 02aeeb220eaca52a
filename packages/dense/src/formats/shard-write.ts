/**
 * Writes what `np.save(path, {"features": features, "ids": ids})` writes. `features` is float32,
 * or raw float16 bits in a Uint16Array with `dtype` 'float16'.
 */
export async function writeDictShard(
  _path: string,
  _features: Float32Array | Uint16Array,
  _dim: number,
  _ids: string[],
  _dtype: 'float32' | 'float16' = 'float32',
): Promise<void> {
  throw new Error('not implemented');
}
