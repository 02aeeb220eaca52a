/** Integer and byte `.npy` files for the index (the dense package writes the float ones). */
import { npyPreamble, writeChunks } from '@irserve/dense';

/** Writes `values` as `<i8` (next-plaid's type for codes and the IVF) or `<i4`. */
export async function writeIntNpy(
  path: string,
  values: Int32Array,
  type: 'int64' | 'int32',
): Promise<void> {
  if (type === 'int32') {
    await writeChunks(path, [
      npyPreamble('<i4', [values.length]),
      new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
    ]);
    return;
  }
  const wide = new Int32Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    wide[2 * i] = values[i]!;
    wide[2 * i + 1] = values[i]! < 0 ? -1 : 0;
  }
  await writeChunks(path, [npyPreamble('<i8', [values.length]), new Uint8Array(wide.buffer)]);
}

/** Writes a uint8 matrix. */
export async function writeBytesNpy(
  path: string,
  bytes: Uint8Array,
  shape: readonly number[],
): Promise<void> {
  await writeChunks(path, [npyPreamble('|u1', shape), bytes]);
}
