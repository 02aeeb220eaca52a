/**
 * The element types an array file stores, their typed-array classes, and the size limits of
 * typed arrays in the Node versions irserve runs on.
 *
 * Node 20 (V8 11) refuses a typed array of more than 2^32 elements, and a `Buffer` or
 * `Uint8Array` is therefore at most 4 GiB: a file is never read through one byte view. An
 * `ArrayBuffer` may be larger, so an Int32Array can hold up to 16 GiB; arrays with more
 * elements than that are read in chunks (`ArrayFile.readChunks`).
 */

export type ElementType = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64';

export type TypedArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

/** The typed array class of each element type. */
export interface ArrayOf {
  u8: Uint8Array;
  i8: Int8Array;
  u16: Uint16Array;
  i16: Int16Array;
  u32: Uint32Array;
  i32: Int32Array;
  f32: Float32Array;
  f64: Float64Array;
}

type Constructor<T> = {
  new (length: number): T;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
};

export const CONSTRUCTORS: { [K in ElementType]: Constructor<ArrayOf[K]> } = {
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  i16: Int16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  f64: Float64Array,
};

export const ELEMENT_TYPES = Object.keys(CONSTRUCTORS) as ElementType[];

/** The most elements one typed array may have on every supported Node (20 is the tightest). */
export const MAX_ARRAY_ELEMENTS = 2 ** 32 - 1;

/** The most bytes one Uint8Array or Buffer may have on every supported Node. */
export const MAX_BYTE_VIEW = 2 ** 32 - 1;

/**
 * Bytes per element of `type`.
 *
 * @example elementBytes('f32') // 4
 */
export function elementBytes(type: ElementType): number {
  return CONSTRUCTORS[type].BYTES_PER_ELEMENT;
}

/**
 * The element type of a typed array.
 *
 * @example elementTypeOf(new Float32Array(2)) // 'f32'
 */
export function elementTypeOf(array: TypedArray): ElementType {
  for (const type of ELEMENT_TYPES) if (array instanceof CONSTRUCTORS[type]) return type;
  throw new TypeError('not a typed array of a stored element type');
}

/** The bytes of a typed array (a view, no copy; at most MAX_BYTE_VIEW of them). */
export function bytesOf(array: TypedArray): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * Throws a clear error when `count` elements would not fit one typed array; builders call it
 * before a long build writes something no reader could open.
 *
 * @example assertArrayFits(numPostings, 'postings of the BM25 index');
 */
export function assertArrayFits(count: number, what: string): void {
  if (count > MAX_ARRAY_ELEMENTS)
    throw new RangeError(
      `${what}: ${count} elements, more than one typed array holds on Node (${MAX_ARRAY_ELEMENTS}): split the collection into shards and serve them with federation`,
    );
}
