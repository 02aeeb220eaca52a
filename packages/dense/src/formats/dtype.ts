/**
 * numpy element types (`'<f4'`, `'|O'`, `'<U12'`...) and the decoding of raw array bytes into
 * the typed results of {@link NpyArray}. Shared by the `.npy` reader and the pickle reader,
 * which meets the same bytes inside pickled ndarrays.
 */
import { FormatError } from './errors.js';
import { decodeFloat16, float16Table } from './float16.js';
import { reorderFortran } from './fortran.js';
import type { NpyArray, NpyFloatDtype, NpyIntDtype } from './types.js';

/** One numpy element type: kind character, size in bytes, byte order. */
export interface Descr {
  char: 'f' | 'i' | 'u' | 'b' | 'U' | 'S' | 'O';
  size: number;
  little: boolean;
}

/** True on little-endian hosts, where little-endian data can be viewed without swapping. */
export const HOST_LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Permission to move misaligned array bytes back by up to 3 bytes inside the reader's own
 * file buffer, so a float32 view needs no copy (copying 600 MB costs more than parsing it).
 * `moved` remembers where each moved byte range now lives, in case a pickle reuses it.
 */
export interface Realign {
  moved: WeakMap<Uint8Array, Uint8Array>;
}

/**
 * Only ranges this long are moved: they come from BINBYTES, BINBYTES8 or BYTEARRAY8, whose
 * length prefix (4 or 8 bytes) is the only thing the move overwrites.
 */
const MIN_REALIGN = 4096;

/** Largest element count accepted: beyond any shard, and small enough that sizes stay exact. */
const MAX_ELEMENTS = 2 ** 40;

/** Parses a numpy type string such as `'<f4'`, `'|O'`, `'>i8'` or `'<U12'`. */
export function parseDescr(text: string, file: string): Descr {
  const match = /^([<>|=]?)([fiubUSO])(\d*)$/.exec(text);
  if (!match) throw new FormatError(file, `unsupported dtype ${JSON.stringify(text)}`);
  const [, order = '', char = '', digits = ''] = match;
  const unit = char === 'U' ? 4 : 1;
  const size = char === 'O' ? 8 : Number(digits || (char === 'b' ? '1' : 'NaN')) * unit;
  const valid =
    char === 'f'
      ? [2, 4, 8].includes(size)
      : 'iu'.includes(char)
        ? [1, 2, 4, 8].includes(size)
        : size > 0;
  if (!Number.isSafeInteger(size) || !valid) {
    throw new FormatError(file, `unsupported dtype ${JSON.stringify(text)}`);
  }
  return { char: char as Descr['char'], size, little: order !== '>' };
}

/** The number of elements of `shape`, checked to be a sane non-negative integer. */
export function shapeSize(shape: readonly number[], file: string): number {
  let size = 1;
  for (const dim of shape) {
    if (!Number.isSafeInteger(dim) || dim < 0) {
      throw new FormatError(file, `bad array shape (${shape.join(', ')})`);
    }
    size *= dim;
    if (size > MAX_ELEMENTS)
      throw new FormatError(file, `array shape (${shape.join(', ')}) is too large`);
  }
  return size;
}

/**
 * Decodes `bytes` (exactly `shapeSize(shape) * descr.size` long) into a row-major array.
 * Object arrays never come here: their elements are pickled, not laid out in bytes.
 */
export function decodeArray(
  bytes: Uint8Array,
  descr: Descr,
  shape: number[],
  fortran: boolean,
  file: string,
  realign?: Realign,
): NpyArray {
  const count = shapeSize(shape, file);
  if (bytes.byteLength !== count * descr.size) {
    throw new FormatError(
      file,
      `array data is ${bytes.byteLength} bytes, shape (${shape.join(', ')}) needs ${count * descr.size}`,
    );
  }
  const order = fortran && shape.length > 1 ? shape : null;
  switch (descr.char) {
    case 'f': {
      const data = decodeFloats(bytes, descr, count, realign);
      return {
        kind: 'float',
        dtype: `float${descr.size * 8}` as NpyFloatDtype,
        shape,
        data: reorder(data, order),
      };
    }
    case 'i':
    case 'u':
    case 'b': {
      const data = decodeInts(bytes, descr, count, file);
      const dtype = (
        descr.char === 'b' ? 'bool' : `${descr.char === 'u' ? 'u' : ''}int${descr.size * 8}`
      ) as NpyIntDtype;
      return { kind: 'int', dtype, shape, data: reorder(data, order) };
    }
    case 'U':
    case 'S': {
      const data = decodeStrings(bytes, descr, count);
      return {
        kind: 'string',
        dtype: descr.char === 'U' ? 'unicode' : 'bytes',
        shape,
        data: reorder(data, order),
      };
    }
    case 'O':
      throw new FormatError(file, 'object arrays are pickled, not stored as raw bytes');
  }
}

function reorder<T extends Float32Array | Float64Array | string[]>(
  data: T,
  shape: number[] | null,
): T {
  return shape ? reorderFortran(data, shape) : data;
}

/**
 * `bytes` where a `size`-byte typed array can view it: in place when aligned, moved back a few
 * bytes when allowed (see {@link Realign}), else copied. Pickled data sits at any offset.
 */
function aligned(
  bytes: Uint8Array,
  size: number,
  realign?: Realign,
): { buffer: ArrayBuffer; offset: number } {
  const source = realign?.moved.get(bytes) ?? bytes;
  const { buffer, byteOffset, byteLength } = source;
  if (!(buffer instanceof ArrayBuffer)) return { buffer: source.slice().buffer, offset: 0 };
  const shift = byteOffset % size;
  if (shift === 0) return { buffer, offset: byteOffset };
  if (!realign || byteLength < MIN_REALIGN) return { buffer: source.slice().buffer, offset: 0 };
  new Uint8Array(buffer).copyWithin(byteOffset - shift, byteOffset, byteOffset + byteLength);
  realign.moved.set(bytes, new Uint8Array(buffer, byteOffset - shift, byteLength));
  return { buffer, offset: byteOffset - shift };
}

function decodeFloats(
  bytes: Uint8Array,
  descr: Descr,
  count: number,
  realign?: Realign,
): Float32Array {
  const native = descr.little === HOST_LITTLE;
  if (native && (descr.size === 4 || descr.size === 2)) {
    const { buffer, offset } = aligned(bytes, descr.size, realign);
    if (descr.size === 4) return new Float32Array(buffer, offset, count);
    return decodeFloat16(new Uint16Array(buffer, offset, count));
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(count);
  const little = descr.little;
  if (descr.size === 8) {
    for (let i = 0; i < count; i++) out[i] = view.getFloat64(i * 8, little);
  } else if (descr.size === 4) {
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, little);
  } else {
    const table = float16Table();
    for (let i = 0; i < count; i++) out[i] = table[view.getUint16(i * 2, little)]!;
  }
  return out;
}

function decodeInts(bytes: Uint8Array, descr: Descr, count: number, file: string): Float64Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(count);
  const { size, little } = descr;
  const signed = descr.char === 'i';
  for (let i = 0; i < count; i++) {
    const at = i * size;
    if (size === 1) out[i] = signed ? view.getInt8(at) : view.getUint8(at);
    else if (size === 2) out[i] = signed ? view.getInt16(at, little) : view.getUint16(at, little);
    else if (size === 4) out[i] = signed ? view.getInt32(at, little) : view.getUint32(at, little);
    else {
      const big = signed ? view.getBigInt64(at, little) : view.getBigUint64(at, little);
      const value = Number(big);
      if (!Number.isSafeInteger(value)) throw new FormatError(file, `integer ${big} exceeds 2^53`);
      out[i] = value;
    }
  }
  return out;
}

function decodeStrings(bytes: Uint8Array, descr: Descr, count: number): string[] {
  const out = new Array<string>(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const utf8 = new TextDecoder();
  for (let i = 0; i < count; i++) {
    const start = i * descr.size;
    if (descr.char === 'S') {
      let end = start + descr.size;
      while (end > start && bytes[end - 1] === 0) end--;
      out[i] = utf8.decode(bytes.subarray(start, end));
      continue;
    }
    // UTF-32 code points, NUL-padded on the right (numpy strips trailing NULs too).
    const points: number[] = [];
    for (let at = start; at < start + descr.size; at += 4)
      points.push(view.getUint32(at, descr.little));
    while (points.length > 0 && points[points.length - 1] === 0) points.pop();
    out[i] = String.fromCodePoint(...points.map((p) => (p > 0x10ffff ? 0xfffd : p)));
  }
  return out;
}
