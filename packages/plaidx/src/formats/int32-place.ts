/**
 * A 1-D integer tensor read from its place in a file into int32 values a slice at a time, so
 * the data may be larger than one byte array holds (past 4 GiB on Node 20): the IVF of either
 * layout (`ivf.npy`, `ivf.pid.pt`, the older `ivf.pt`) and its list lengths.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { FormatError } from '@irserve/dense';
import type { TensorPlace } from './tensor-place.js';
import { DTYPE_SIZE, int32Into, type TensorDtype } from './tensor.js';

/** Bytes read at a time (a multiple of every integer element size). */
const SLICE_BYTES = 16 << 20;

const INTEGER_DTYPES: ReadonlySet<TensorDtype> = new Set([
  'int64',
  'int32',
  'int16',
  'int8',
  'uint8',
]);

/**
 * Reads the integer tensor at `place` as int32; an int64 value that does not fit is refused
 * with its position. `what` names the tensor in errors, which also name the file.
 *
 * @example const pids = await readInt32Place(npyPlace('index/ivf.npy'), 'IVF')
 */
export async function readInt32Place(place: TensorPlace, what: string): Promise<Int32Array> {
  const { file, dtype, shape } = place;
  if (shape.length !== 1 || !INTEGER_DTYPES.has(dtype))
    throw new FormatError(
      file,
      `${what}: expected a 1-D integer tensor, got ${dtype} of shape (${shape.join(', ')})`,
    );
  const size = DTYPE_SIZE[dtype];
  const out = new Int32Array(shape[0]!);
  const handle = await open(file, 'r');
  try {
    const slice = new Uint8Array(Math.min(SLICE_BYTES, out.length * size));
    for (let at = 0; at < out.length;) {
      const n = Math.min(out.length - at, SLICE_BYTES / size);
      const bytes = slice.subarray(0, n * size);
      const read = await readFully(handle, bytes, place.offset + at * size);
      if (read < bytes.length)
        throw new FormatError(
          file,
          `${what}: truncated: the file ends at entry ${at + Math.floor(read / size)} of ${out.length}`,
        );
      int32Into({ kind: 'tensor', dtype, shape: [n], bytes }, file, out, at);
      at += n;
    }
  } finally {
    await handle.close();
  }
  return out;
}

/** Fills `bytes` from `position` unless the file ends first; returns the bytes read. */
async function readFully(handle: FileHandle, bytes: Uint8Array, position: number): Promise<number> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesRead } = await handle.read(bytes, done, bytes.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}
