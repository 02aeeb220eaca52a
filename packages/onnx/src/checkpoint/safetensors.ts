/**
 * The header of a safetensors file: an 8-byte little-endian length, that many bytes of JSON
 * (`{"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}`), then
 * the tensors' bytes. Only the header is read; every entry is checked against the file's size,
 * so a truncated or damaged file is refused at start-up, naming the file and the tensor, before
 * ONNX Runtime ever maps it.
 */
import { open } from 'node:fs/promises';
import { FormatError } from 'irserve/plugin';
import type { TensorDtype } from '../formats/tensor.js';
import { DTYPE_SIZE, numel } from '../formats/tensor.js';
import type { WeightEntry } from './weights.js';

/** safetensors' dtype names. */
const DTYPES: Readonly<Record<string, TensorDtype>> = {
  F64: 'float64',
  F32: 'float32',
  F16: 'float16',
  BF16: 'bfloat16',
  I64: 'int64',
  I32: 'int32',
  I16: 'int16',
  I8: 'int8',
  U8: 'uint8',
  BOOL: 'bool',
};

/** A header longer than this is not a header (safetensors itself caps it at 100 MB). */
const MAX_HEADER = 100_000_000;

/**
 * The tensors of one safetensors file, each with its place in the file (`file` is `path`; the
 * caller resolves links). Errors name the file as `label`.
 *
 * @example const tensors = await readSafetensorsHeader('/models/e5/model.safetensors')
 */
export async function readSafetensorsHeader(path: string, label = path): Promise<WeightEntry[]> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const fail = (why: string): never => {
      throw new FormatError(label, `not a valid safetensors file: ${why}`);
    };
    if (size < 8) fail(`${size} bytes, shorter than the 8-byte header length`);
    const lengthBytes = new Uint8Array(8);
    await handle.read(lengthBytes, 0, 8, 0);
    const headerLength = Number(new DataView(lengthBytes.buffer).getBigUint64(0, true));
    if (headerLength > MAX_HEADER || 8 + headerLength > size)
      fail(`the header claims ${headerLength} bytes but the file holds ${size} (truncated?)`);
    const headerBytes = new Uint8Array(headerLength);
    await handle.read(headerBytes, 0, headerLength, 8);
    let header: unknown;
    try {
      header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
    } catch (error) {
      return fail(`the header is not JSON (${(error as Error).message})`);
    }
    if (header === null || typeof header !== 'object' || Array.isArray(header))
      return fail('the header is not a JSON object');
    const dataStart = 8 + headerLength;
    return Object.entries(header as Record<string, unknown>)
      .filter(([name]) => name !== '__metadata__')
      .map(([name, value]) => entryOf(path, label, name, value, dataStart, size - dataStart));
  } finally {
    await handle.close();
  }
}

function entryOf(
  path: string,
  label: string,
  name: string,
  value: unknown,
  dataStart: number,
  dataSize: number,
): WeightEntry {
  const fail = (why: string): never => {
    throw new FormatError(label, `tensor ${name}: ${why}`);
  };
  const { dtype, shape, data_offsets: offsets } = (value ?? {}) as Record<string, unknown>;
  if (typeof dtype !== 'string') return fail('no dtype');
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0))
    return fail(`bad shape ${JSON.stringify(shape)}`);
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) ||
    offsets[0] > offsets[1]
  )
    return fail(`bad data_offsets ${JSON.stringify(offsets)}`);
  const [begin, end] = offsets as [number, number];
  if (end > dataSize)
    fail(
      `its data ends at byte ${dataStart + end} but the file holds ${dataStart + dataSize} (truncated)`,
    );
  const known = DTYPES[dtype];
  if (known !== undefined && end - begin !== numel(shape as number[]) * DTYPE_SIZE[known])
    fail(
      `holds ${end - begin} bytes, but ${dtype} [${shape.join(', ')}] needs ${numel(shape as number[]) * DTYPE_SIZE[known]}`,
    );
  return {
    name,
    dtype: known ?? dtype,
    shape: shape as number[],
    file: path,
    label,
    offset: dataStart + begin,
    length: end - begin,
  };
}
