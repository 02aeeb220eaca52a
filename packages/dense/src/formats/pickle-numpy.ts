/**
 * The numpy side of unpickling: the allow-listed globals, what calling them yields, and how
 * BUILD fills an ndarray or a dtype. Nothing is ever looked up by name beyond this list.
 */
import { decodeArray, parseDescr, shapeSize, type Descr, type Realign } from './dtype.js';
import { FormatError } from './errors.js';
import type { NpyArray, PickleTuple, PickleValue } from './types.js';

type GlobalKind =
  | 'reconstruct'
  | 'ndarray'
  | 'dtype'
  | 'scalar'
  | 'frombuffer'
  | 'encode'
  | 'bytes'
  | 'bytearray'
  | 'set'
  | 'frozenset';

/** `module name` -> what it may do. numpy 2 moved `numpy.core` to `numpy._core`. */
const ALLOWED: ReadonlyMap<string, GlobalKind> = new Map<string, GlobalKind>([
  ['numpy.core.multiarray _reconstruct', 'reconstruct'],
  ['numpy._core.multiarray _reconstruct', 'reconstruct'],
  ['numpy ndarray', 'ndarray'],
  ['numpy dtype', 'dtype'],
  ['numpy.core.multiarray scalar', 'scalar'],
  ['numpy._core.multiarray scalar', 'scalar'],
  ['numpy.core.numeric _frombuffer', 'frombuffer'],
  ['numpy._core.numeric _frombuffer', 'frombuffer'],
  ['_codecs encode', 'encode'],
  ['codecs encode', 'encode'],
  ['builtins bytes', 'bytes'],
  ['__builtin__ bytes', 'bytes'],
  ['builtins bytearray', 'bytearray'],
  ['__builtin__ bytearray', 'bytearray'],
  ['builtins set', 'set'],
  ['__builtin__ set', 'set'],
  ['builtins frozenset', 'frozenset'],
  ['__builtin__ frozenset', 'frozenset'],
]);

/** A resolved, allow-listed global: only ever called through {@link callGlobal}. */
export class Global {
  constructor(
    readonly kind: GlobalKind,
    readonly qualified: string,
  ) {}
}

/** A `numpy.dtype` under construction; BUILD sets its byte order and item size. */
export class DtypeBox {
  constructor(public descr: Descr) {}
}

/** What the machine's stack holds: data, or one of the two callable-side helpers. */
export type Value = PickleValue | Global | DtypeBox;

/** Resolves `module.name`, or throws naming it: the heart of the reader's safety. */
export function resolveGlobal(module: string, name: string, file: string): Global {
  const kind = ALLOWED.get(`${module} ${name}`);
  if (!kind) {
    const allowed = [...new Set([...ALLOWED.keys()].map((k) => k.replace(' ', '.')))].join(', ');
    throw new FormatError(
      file,
      `pickle global ${module}.${name} is not allowed (allowed: ${allowed})`,
    );
  }
  return new Global(kind, `${module}.${name}`);
}

/** A fresh ndarray as `_reconstruct` makes it: empty until BUILD gives it its state. */
export function emptyArray(): NpyArray {
  return { kind: 'object', shape: [0], data: [] };
}

export function isTuple(value: Value | undefined): value is PickleTuple {
  return isObjectWithKind(value) && value.kind === 'tuple';
}

/** True for an ndarray value (a decoded NpyArray). */
export function isNpyArray(value: Value | undefined): value is NpyArray {
  return isObjectWithKind(value) && value.kind !== 'tuple';
}

function isObjectWithKind(value: Value | undefined): value is PickleTuple | NpyArray {
  return (
    typeof value === 'object' && value !== null && !(value instanceof Global) && 'kind' in value
  );
}

/** Calls an allow-listed global with `args` (REDUCE). `pending` collects fresh ndarrays. */
export function callGlobal(
  fn: Global,
  args: readonly Value[],
  file: string,
  pending: WeakSet<object>,
  realign?: Realign,
): Value {
  const bad = (): never => {
    throw new FormatError(file, `unexpected arguments to ${fn.qualified}`);
  };
  const [a, b, c, d] = args;
  switch (fn.kind) {
    case 'reconstruct': {
      if (!(a instanceof Global) || a.kind !== 'ndarray') bad();
      const array = emptyArray();
      pending.add(array);
      return array;
    }
    case 'dtype':
      return typeof a === 'string' ? new DtypeBox(parseDescr(a, file)) : bad();
    case 'scalar':
      return a instanceof DtypeBox && b instanceof Uint8Array ? scalar(a.descr, b, file) : bad();
    case 'frombuffer': {
      if (!(b instanceof DtypeBox) || !(a instanceof Uint8Array) || !isTuple(c)) return bad();
      return decodeArray(a, b.descr, intTuple(c, file), d === 'F', file, realign);
    }
    case 'encode':
      return typeof a === 'string' && (b === 'latin1' || b === 'latin-1') ? latin1(a, file) : bad();
    case 'bytes':
    case 'bytearray':
      return a === undefined ? new Uint8Array(0) : a instanceof Uint8Array ? a.slice() : bad();
    case 'set':
    case 'frozenset':
      return a === undefined ? new Set() : Array.isArray(a) ? new Set(a) : bad();
    case 'ndarray':
      return bad();
  }
}

/** BUILD: gives a `_reconstruct`ed array or a dtype its pickled state. */
export function build(
  target: Value,
  state: Value,
  file: string,
  pending: WeakSet<object>,
  realign?: Realign,
): void {
  if (target instanceof DtypeBox) return buildDtype(target, state, file);
  if (!isNpyArray(target) || !pending.has(target)) {
    throw new FormatError(file, 'pickle BUILD on an object other than an ndarray or a dtype');
  }
  pending.delete(target);
  const items = isTuple(state) ? state.items : [];
  const [shapeValue, dtype, fortran, data] = items.length === 5 ? items.slice(1) : items;
  if (!isTuple(shapeValue) || !(dtype instanceof DtypeBox) || items.length < 4) {
    throw new FormatError(file, 'bad ndarray state in pickle');
  }
  const shape = intTuple(shapeValue, file);
  const isFortran = fortran === true || fortran === 1;
  if (dtype.descr.char === 'O') {
    if (!Array.isArray(data) || data.length !== shapeSize(shape, file)) {
      throw new FormatError(file, 'object ndarray state does not hold one item per element');
    }
    Object.assign(target, { kind: 'object', shape, data });
    return;
  }
  if (!(data instanceof Uint8Array))
    throw new FormatError(file, 'ndarray state lacks its data bytes');
  Object.assign(target, decodeArray(data, dtype.descr, shape, isFortran, file, realign));
}

function buildDtype(target: DtypeBox, state: Value, file: string): void {
  const items = isTuple(state) ? state.items : [];
  const [, order, subarray, names, , elsize] = items;
  if (items.length < 8 || typeof order !== 'string')
    throw new FormatError(file, 'bad numpy.dtype state in pickle');
  if (subarray !== null || names !== null) {
    throw new FormatError(file, 'structured or sub-array dtypes are not supported');
  }
  const flexible = 'USV'.includes(target.descr.char);
  const size = flexible && typeof elsize === 'number' && elsize > 0 ? elsize : target.descr.size;
  target.descr = { ...target.descr, size, little: order !== '>' };
}

function scalar(descr: Descr, bytes: Uint8Array, file: string): PickleValue {
  const array = decodeArray(bytes, descr, [], false, file);
  const value = array.kind === 'object' ? undefined : array.data[0];
  if (value === undefined) throw new FormatError(file, 'bad numpy scalar in pickle');
  return value;
}

function intTuple(tuple: PickleTuple, file: string): number[] {
  return tuple.items.map((item) => {
    if (typeof item !== 'number' || !Number.isSafeInteger(item))
      throw new FormatError(file, 'bad ndarray shape');
    return item;
  });
}

function latin1(text: string, file: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 255) throw new FormatError(file, 'codecs.encode argument is not latin-1');
    out[i] = code;
  }
  return out;
}
