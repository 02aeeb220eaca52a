/**
 * Writes RoutIR-style dict shards: what `np.save(path, {"features": f, "ids": ids})` writes,
 * a 0-d object `.npy` whose body is a pickle (protocol 4, no frames, no memo) of the dict.
 * numpy loads it with `allow_pickle=True`. The feature bytes are written straight from the
 * caller's array: a 200k x 768 shard is never copied.
 */
import { ByteWriter } from './byte-writer.js';
import { HOST_LITTLE } from './dtype.js';
import { FormatError } from './errors.js';
import { toFloat16Bits } from './float16.js';
import { writeChunks } from './io.js';
import { npyPreamble } from './npy.js';

const OP = {
  PROTO: 0x80,
  MARK: 0x28,
  STOP: 0x2e,
  EMPTY_TUPLE: 0x29,
  EMPTY_LIST: 0x5d,
  EMPTY_DICT: 0x7d,
  TUPLE: 0x74,
  TUPLE1: 0x85,
  TUPLE2: 0x86,
  TUPLE3: 0x87,
  NONE: 0x4e,
  NEWTRUE: 0x88,
  NEWFALSE: 0x89,
  BININT: 0x4a,
  BININT1: 0x4b,
  SHORT_BINUNICODE: 0x8c,
  BINUNICODE: 0x58,
  SHORT_BINBYTES: 0x43,
  BINBYTES8: 0x8e,
  STACK_GLOBAL: 0x93,
  REDUCE: 0x52,
  BUILD: 0x62,
  APPENDS: 0x65,
  SETITEMS: 0x75,
} as const;

/** Host byte order, so the bytes are written as they lie in memory. */
const ORDER = HOST_LITTLE ? '<' : '>';

/**
 * Writes `np.save(path, {"features": features.reshape(-1, dim), "ids": ids})`. `features` is
 * float32, or float16 bits in a Uint16Array; a Float32Array with `dtype` 'float16' is rounded.
 *
 * @example await writeDictShard('emb/0.npy', vectors, 768, ids, 'float16')
 */
export async function writeDictShard(
  path: string,
  features: Float32Array | Uint16Array,
  dim: number,
  ids: string[],
  dtype: 'float32' | 'float16' = features instanceof Uint16Array ? 'float16' : 'float32',
): Promise<void> {
  if (!Number.isSafeInteger(dim) || dim <= 0 || features.length !== ids.length * dim) {
    throw new FormatError(path, `${features.length} values are not ${ids.length} ids x dim ${dim}`);
  }
  if (features instanceof Uint16Array && dtype !== 'float16') {
    throw new FormatError(path, 'a Uint16Array holds float16 bits: pass dtype "float16"');
  }
  const body =
    dtype === 'float16' && features instanceof Float32Array ? toFloat16Bits(features) : features;
  const data = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const head = new ByteWriter().u8(OP.PROTO, 4);
  objectArrayOpen(head);
  head.u8(OP.EMPTY_DICT, OP.MARK);
  unicode(head, 'features');
  reconstruct(head);
  head
    .u8(OP.MARK, OP.BININT1, 1)
    .u8(OP.BININT)
    .i32(ids.length)
    .u8(OP.BININT)
    .i32(dim)
    .u8(OP.TUPLE2);
  numpyDtype(head, dtype === 'float16' ? 'f2' : 'f4', ORDER, 0);
  head.u8(OP.NEWFALSE, OP.BINBYTES8).u64(data.byteLength);
  const tail = new ByteWriter().u8(OP.TUPLE, OP.BUILD);
  unicode(tail, 'ids');
  tail.u8(OP.EMPTY_LIST, OP.MARK);
  for (const id of ids) unicode(tail, id);
  tail.u8(OP.APPENDS, OP.SETITEMS, OP.APPENDS, OP.TUPLE, OP.BUILD, OP.STOP);
  await writeChunks(path, [npyPreamble('|O', []), head.result(), data, tail.result()]);
}

/** `_reconstruct(ndarray, (0,), b'b')`, then the state of a 0-d object array up to its list. */
function objectArrayOpen(w: ByteWriter): void {
  reconstruct(w);
  w.u8(OP.MARK, OP.BININT1, 1, OP.EMPTY_TUPLE);
  numpyDtype(w, 'O8', '|', 63);
  w.u8(OP.NEWFALSE, OP.EMPTY_LIST, OP.MARK);
}

function reconstruct(w: ByteWriter): void {
  global(w, 'numpy.core.multiarray', '_reconstruct');
  global(w, 'numpy', 'ndarray');
  w.u8(OP.BININT1, 0, OP.TUPLE1, OP.SHORT_BINBYTES, 1, 0x62, OP.TUPLE3, OP.REDUCE);
}

/** `numpy.dtype(code, False, True)` with BUILD state `(3, order, None, None, None, -1, -1, flags)`. */
function numpyDtype(w: ByteWriter, code: string, order: string, flags: number): void {
  global(w, 'numpy', 'dtype');
  unicode(w, code);
  w.u8(OP.NEWFALSE, OP.NEWTRUE, OP.TUPLE3, OP.REDUCE, OP.MARK, OP.BININT1, 3);
  unicode(w, order);
  w.u8(OP.NONE, OP.NONE, OP.NONE, OP.BININT).i32(-1).u8(OP.BININT).i32(-1);
  w.u8(OP.BININT1, flags, OP.TUPLE, OP.BUILD);
}

function global(w: ByteWriter, module: string, name: string): void {
  unicode(w, module);
  unicode(w, name);
  w.u8(OP.STACK_GLOBAL);
}

function unicode(w: ByteWriter, text: string): void {
  const bytes = w.utf8(text);
  if (bytes.byteLength < 256) w.u8(OP.SHORT_BINUNICODE, bytes.byteLength);
  else w.u8(OP.BINUNICODE).u32(bytes.byteLength);
  w.bytes(bytes);
}
