/**
 * The `.npy` format (versions 1.0, 2.0 and 3.0): magic, a Python-literal header, then raw
 * array bytes, or a pickle for object arrays (RoutIR's dict shards).
 */
import { decodeArray, parseDescr, shapeSize } from './dtype.js';
import { FormatError } from './errors.js';
import { toFloat16Bits } from './float16.js';
import { readWhole, writeChunks } from './io.js';
import { formatNpyHeader, parseNpyHeader } from './npy-header.js';
import { readPickle, type ParseOptions } from './pickle.js';
import type { NpyArray } from './types.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** numpy refuses headers over 10,000 bytes by default; allow more, but not unbounded. */
export const MAX_HEADER_BYTES = 1 << 20;

export interface WriteNpyOptions {
  /** On-disk type of a Float32Array: float32 (default) or float16. Uint16Array is float16. */
  dtype?: 'float32' | 'float16';
}

/** Where the array data of a `.npy` starts, with its decoded header. */
export function parseNpyPreamble(bytes: Uint8Array, file: string) {
  if (bytes.byteLength < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new FormatError(file, 'not a .npy file (bad magic)');
  }
  const major = bytes[6]!;
  if (major < 1 || major > 3)
    throw new FormatError(file, `unsupported .npy version ${major}.${bytes[7]}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthBytes = major === 1 ? 2 : 4;
  if (bytes.byteLength < 8 + lengthBytes) throw new FormatError(file, 'truncated .npy header');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerLength > MAX_HEADER_BYTES) {
    throw new FormatError(
      file,
      `.npy header of ${headerLength} bytes exceeds the ${MAX_HEADER_BYTES}-byte limit`,
    );
  }
  const start = 8 + lengthBytes;
  if (bytes.byteLength < start + headerLength) throw new FormatError(file, 'truncated .npy header');
  const raw = bytes.subarray(start, start + headerLength);
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(raw);
  return { header: parseNpyHeader(text, file), dataOffset: start + headerLength };
}

/**
 * Parses `.npy` bytes. `file` labels errors.
 *
 * @example parseNpy(await readFile('x.npy'), 'x.npy')  // { kind: 'float', shape: [n, d], data }
 */
export function parseNpy(
  bytes: Uint8Array,
  file = '<buffer>',
  options: ParseOptions = {},
): NpyArray {
  const { header, dataOffset } = parseNpyPreamble(bytes, file);
  const descr = parseDescr(header.descr, file);
  const body = bytes.subarray(dataOffset);
  if (descr.char === 'O') {
    const value = readPickle(body, file, options);
    if (
      value === null ||
      typeof value !== 'object' ||
      !('kind' in value) ||
      value.kind !== 'object'
    ) {
      throw new FormatError(file, 'object .npy does not hold a pickled object array');
    }
    return value;
  }
  const needed = shapeSize(header.shape, file) * descr.size;
  if (body.byteLength < needed) {
    throw new FormatError(file, `truncated .npy data: ${body.byteLength} of ${needed} bytes`);
  }
  return decodeArray(body.subarray(0, needed), descr, header.shape, header.fortranOrder, file);
}

/** Reads a `.npy` file (numeric, string or pickled object array). */
export async function readNpy(path: string): Promise<NpyArray> {
  return parseNpy(await readWhole(path), path, { ownsInput: true });
}

/** The `.npy` preamble (magic, version 1.0 or 2.0, header padded to 64 bytes) for `header`. */
export function npyPreamble(descr: string, shape: readonly number[]): Uint8Array {
  const text = formatNpyHeader({ descr, fortranOrder: false, shape: [...shape] });
  const long = text.length + 11 > 0xffff;
  const fixed = long ? 12 : 10;
  const padded = Math.ceil((fixed + text.length + 1) / 64) * 64;
  const header = text.padEnd(padded - fixed - 1, ' ') + '\n';
  const out = new Uint8Array(padded);
  out.set(MAGIC);
  out[6] = long ? 2 : 1;
  const view = new DataView(out.buffer);
  if (long) view.setUint32(8, header.length, true);
  else view.setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[fixed + i] = header.charCodeAt(i);
  return out;
}

/**
 * Writes a `.npy` file: a float matrix (Float32Array as float32 or float16, Uint16Array as raw
 * float16 bits) or a unicode string array, in C order.
 *
 * @example await writeNpy('x.npy', new Float32Array(6), [2, 3])
 */
export async function writeNpy(
  path: string,
  data: Float32Array | Uint16Array | string[],
  shape: readonly number[],
  options: WriteNpyOptions = {},
): Promise<void> {
  if (shapeSize(shape, path) !== data.length) {
    throw new FormatError(path, `shape (${shape.join(', ')}) does not match ${data.length} values`);
  }
  if (Array.isArray(data)) {
    const { descr, bytes } = encodeUnicode(data);
    return writeChunks(path, [npyPreamble(descr, shape), bytes]);
  }
  const half =
    data instanceof Uint16Array ? data : options.dtype === 'float16' ? toFloat16Bits(data) : null;
  const body = half ?? data;
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return writeChunks(path, [npyPreamble(half ? '<f2' : '<f4', shape), bytes]);
}

/** UTF-32LE, NUL-padded to the longest string (in code points), as numpy's `<U` type. */
function encodeUnicode(values: readonly string[]): { descr: string; bytes: Uint8Array } {
  const points = values.map((s) => Array.from(s, (c) => c.codePointAt(0)!));
  // A loop, not Math.max(...): spreading 200k arguments overflows the call stack.
  let width = 1;
  for (const p of points) width = Math.max(width, p.length);
  const out = new Uint32Array(values.length * width);
  points.forEach((p, i) => out.set(p, i * width));
  return { descr: `<U${width}`, bytes: new Uint8Array(out.buffer) };
}
