/**
 * Where a tensor lies in its file, found from the file's head alone (a `.npy` preamble, a
 * `.pt` archive's directory and pickle): what an index served from its files needs to read
 * rows on demand, without reading the data at start.
 */
import { openSync, closeSync, fstatSync } from 'node:fs';
import { parseDescr, parseNpyPreamble, FormatError } from '@irserve/dense';
import {
  fileSource,
  readTorchRanges,
  type PickleData,
  type TensorRange,
} from '@irserve/onnx/formats';
import { numel, type TensorDtype } from './tensor.js';

export interface TensorPlace extends TensorRange {
  readonly file: string;
}

/** The tensor type of each numpy type code (kind and size). */
export const NPY_DTYPES: Readonly<Record<string, TensorDtype>> = {
  f8: 'float64',
  f4: 'float32',
  f2: 'float16',
  i8: 'int64',
  i4: 'int32',
  i2: 'int16',
  i1: 'int8',
  u1: 'uint8',
  b1: 'bool',
};

/** Bytes read first for a `.npy` preamble (numpy writes 64- or 128-byte ones). */
const NPY_HEAD = 4096;

function withFile<T>(path: string, use: (fd: number, size: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new FormatError(
      path,
      `cannot open: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  try {
    return use(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/** The data of a numeric `.npy` file: its type, shape and byte range. */
export function npyPlace(path: string): TensorPlace {
  return withFile(path, (fd, size) => {
    const source = fileSource(fd, size);
    let head = source.read(0, Math.min(size, NPY_HEAD));
    let parsed: ReturnType<typeof parseNpyPreamble>;
    try {
      parsed = parseNpyPreamble(head, path);
    } catch (error) {
      // A longer header (numpy's version 2 preamble): read what its length field says.
      if (size <= NPY_HEAD || !/truncated/.test((error as Error).message)) throw error;
      head = source.read(0, Math.min(size, 12 + new DataView(head.buffer).getUint32(8, true)));
      parsed = parseNpyPreamble(head, path);
    }
    const descr = parseDescr(parsed.header.descr, path);
    const dtype = NPY_DTYPES[`${descr.char}${descr.size}`];
    if (!dtype || (!descr.little && descr.size > 1))
      throw new FormatError(
        path,
        `unsupported dtype ${parsed.header.descr} for a PLAID index file`,
      );
    const shape = parsed.header.shape;
    const length = numel(shape) * descr.size;
    if (size < parsed.dataOffset + length)
      throw new FormatError(
        path,
        `truncated .npy data: ${size - parsed.dataOffset} of ${length} bytes`,
      );
    return { file: path, dtype, shape, offset: parsed.dataOffset, length };
  });
}

/**
 * The tensors of a `.pt` file, as ranges of the file, from its directory and pickle alone (the
 * data is not read); each is checked to lie within the file.
 */
function torchPlaces(path: string): PickleData<TensorPlace> {
  return withFile(path, (fd, size) =>
    readTorchRanges(fileSource(fd, size), path, (range): TensorPlace => {
      if (range.offset + range.length > size)
        throw new FormatError(
          path,
          `a tensor of ${range.length} bytes at byte ${range.offset} ends past the end of the file (${size} bytes; truncated)`,
        );
      return { file: path, ...range };
    }),
  );
}

function isPlace(value: PickleData<TensorPlace>): value is TensorPlace {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Map) &&
    'offset' in value
  );
}

/** The one tensor a `.pt` file holds, as a range of the file (the data is not read). */
export function torchPlace(path: string): TensorPlace {
  const value = torchPlaces(path);
  if (!isPlace(value)) throw new FormatError(path, 'expected a single tensor');
  return value;
}

/**
 * The tensors of a `.pt` file holding a tuple of `count` tensors (ColBERT's `ivf.pid.pt`:
 * values and lengths), as ranges of the file.
 *
 * @example const [values, lengths] = torchTuplePlaces('index/ivf.pid.pt', 2)
 */
export function torchTuplePlaces(path: string, count: number): TensorPlace[] {
  const value = torchPlaces(path);
  const items =
    typeof value === 'object' && value !== null && 'kind' in value && value.kind === 'tuple'
      ? value.items
      : [];
  if (items.length !== count || !items.every(isPlace))
    throw new FormatError(path, `expected a tuple of ${count} tensors`);
  return items as TensorPlace[];
}
