/**
 * `.npy` files read as {@link Tensor}s: the raw data viewed in the file's buffer, whatever
 * its integer or float type (the dense package's reader widens integers to float64, eight
 * bytes for each one-byte residual).
 */
import { FormatError, parseDescr, parseNpyPreamble, readWhole } from '@irserve/dense';
import { open } from 'node:fs/promises';
import { NPY_DTYPES, npyPlace } from './tensor-place.js';
import { DTYPE_SIZE, numel, toInt32, type Tensor } from './tensor.js';

/** Parses `.npy` bytes (C order, little-endian, numeric). */
export function parseNpyTensor(bytes: Uint8Array, file: string): Tensor {
  const { header, dataOffset } = parseNpyPreamble(bytes, file);
  const descr = parseDescr(header.descr, file);
  const dtype = NPY_DTYPES[`${descr.char}${descr.size}`];
  if (!dtype || (!descr.little && descr.size > 1))
    throw new FormatError(file, `unsupported dtype ${header.descr} for a PLAID index file`);
  const shape = header.shape.length === 0 ? [] : header.shape;
  if (header.fortranOrder && shape.filter((d) => d > 1).length > 1)
    throw new FormatError(file, 'Fortran-order arrays are not supported in a PLAID index');
  const length = numel(shape) * descr.size;
  if (bytes.byteLength < dataOffset + length)
    throw new FormatError(
      file,
      `truncated .npy data: ${bytes.byteLength - dataOffset} of ${length} bytes`,
    );
  return { kind: 'tensor', dtype, shape, bytes: bytes.subarray(dataOffset, dataOffset + length) };
}

/**
 * Reads a numeric `.npy` file as a tensor view.
 *
 * @example const codes = await readNpyTensor('index/0.codes.npy') // { dtype: 'int64', ... }
 */
export async function readNpyTensor(path: string): Promise<Tensor> {
  return parseNpyTensor(await readWhole(path), path);
}

/** Bytes read at a time by {@link readNpyInt32}. */
const SLICE_BYTES = 16 << 20;

/**
 * Reads a 1-D int64 or int32 `.npy` file into int32 values a slice at a time, so the file may
 * be larger than one byte array holds (past 4 GiB on Node 20); an int64 value that does not fit
 * is refused.
 *
 * @example const pids = await readNpyInt32('index/ivf.npy')
 */
export async function readNpyInt32(path: string): Promise<Int32Array> {
  const place = npyPlace(path);
  if (place.shape.length !== 1 || (place.dtype !== 'int64' && place.dtype !== 'int32'))
    throw new FormatError(
      path,
      `expected a 1-D int64 or int32 array, got ${place.dtype} of shape (${place.shape.join(', ')})`,
    );
  const size = DTYPE_SIZE[place.dtype];
  const out = new Int32Array(place.shape[0]!);
  const handle = await open(path, 'r');
  try {
    const slice = new Uint8Array(SLICE_BYTES);
    for (let at = 0; at < out.length;) {
      const n = Math.min(out.length - at, SLICE_BYTES / size);
      const bytes = slice.subarray(0, n * size);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, place.offset + at * size);
      if (bytesRead !== bytes.length) throw new FormatError(path, 'truncated .npy data');
      const tensor: Tensor = { kind: 'tensor', dtype: place.dtype, shape: [n], bytes };
      try {
        out.set(toInt32(tensor, path), at);
      } catch (error) {
        throw new FormatError(path, `at entry ${at} or after: ${(error as Error).message}`);
      }
      at += n;
    }
  } finally {
    await handle.close();
  }
  return out;
}
