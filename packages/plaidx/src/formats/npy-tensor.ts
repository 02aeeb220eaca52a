/**
 * `.npy` files read as {@link Tensor}s: the raw data viewed in the file's buffer, whatever
 * its integer or float type (the dense package's reader widens integers to float64, eight
 * bytes for each one-byte residual).
 */
import { FormatError, parseDescr, parseNpyPreamble, readWhole } from '@irserve/dense';
import { NPY_DTYPES } from './tensor-place.js';
import { numel, type Tensor } from './tensor.js';

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
