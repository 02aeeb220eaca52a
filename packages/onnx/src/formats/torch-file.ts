/**
 * PyTorch files as `torch.save` writes them: a zip archive (since PyTorch 1.6) holding
 * `<name>/data.pkl`, `<name>/data/<key>` raw storages and `<name>/byteorder`, or the legacy
 * stream (a magic number, a version, system information, the pickle, its storage keys, then
 * each storage as a length and its bytes). Either way a tensor is a range of the file: a file
 * read whole hands out views (a 2 GB residual chunk occupies 2 GB, not 4), a checkpoint on
 * disk hands out offsets, so `pytorch_model.bin` is never read into memory.
 */
import { FormatError, PickleCursor } from 'irserve/plugin';
import { DTYPE_SIZE, type Tensor, type TensorDtype } from './tensor.js';
import {
  readTorchPickle,
  type PickleData,
  type StorageLookup,
  type TensorSlice,
  type TorchValue,
} from './torch-pickle.js';
import { bufferSource, readZipDirectory, type ByteSource, type ZipMember } from './zip-archive.js';

/** A tensor as a range of the file. */
export interface TensorRange {
  readonly dtype: TensorDtype;
  readonly shape: readonly number[];
  /** Byte offset of the first element in the file. */
  readonly offset: number;
  readonly length: number;
}

/** The legacy format's first pickle: the magic number 0x1950a86a20f9469cfc6c as LONG1. */
const LEGACY_MAGIC = [
  0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19,
];
/** How much of a legacy file's start may hold its pickles (a state dict's is kilobytes). */
const LEGACY_PICKLE_LIMIT = 64 * 1024 * 1024;

/**
 * Parses the bytes of a `.pt` file; tensors are views of `bytes`. `file` labels errors.
 *
 * @example const centroids = parseTorchFile(await readWhole('index/centroids.pt'), 'centroids.pt')
 */
export function parseTorchFile(bytes: Uint8Array, file: string): TorchValue {
  return readTorchRanges(bufferSource(bytes), file, (range): Tensor => {
    const { dtype, shape, offset, length } = range;
    return { kind: 'tensor', dtype, shape, bytes: bytes.subarray(offset, offset + length) };
  });
}

/**
 * Reads the pickle of a PyTorch file (zip or legacy) from `source`; each tensor becomes
 * `make(range)`, its place in the file. Every problem is a FormatError naming `file`.
 *
 * @example readTorchRanges(fileSource(fd, size), 'pytorch_model.bin', (range) => range)
 */
export function readTorchRanges<T>(
  source: ByteSource,
  file: string,
  make: (range: TensorRange) => T,
): PickleData<T> {
  const head = source.read(0, Math.min(source.size, LEGACY_MAGIC.length));
  if (head.byteLength >= 2 && head[0] === 0x80 && head[1]! <= 5)
    return readLegacy(source, file, make);
  return readArchive(source, file, make);
}

function readArchive<T>(
  source: ByteSource,
  file: string,
  make: (range: TensorRange) => T,
): PickleData<T> {
  const members = readZipDirectory(source, file);
  const pickleName = [...members.keys()].find((name) => /^[^/]+\/data\.pkl$/.test(name));
  if (pickleName === undefined)
    throw new FormatError(file, 'not a PyTorch archive: no <name>/data.pkl member');
  const prefix = pickleName.slice(0, -'data.pkl'.length);
  const order = members.get(`${prefix}byteorder`);
  if (order && new TextDecoder().decode(read(source, order)) !== 'little')
    throw new FormatError(file, 'big-endian tensors are not supported');
  const storage = (key: string): ZipMember | undefined => members.get(`${prefix}data/${key}`);
  const lookup: StorageLookup<T> = {
    size: (key) => storage(key)?.size,
    tensor: (slice) => make(rangeOf(slice, storage(slice.storage)!.offset)),
  };
  return readTorchPickle(new PickleCursor(read(source, members.get(pickleName)!), file), lookup);
}

function read(source: ByteSource, member: ZipMember): Uint8Array {
  return source.read(member.offset, member.size);
}

function rangeOf(slice: TensorSlice, storageOffset: number): TensorRange {
  return {
    dtype: slice.dtype,
    shape: slice.shape,
    offset: storageOffset + slice.byteOffset,
    length: slice.byteLength,
  };
}

/**
 * The legacy stream: the pickles are read twice, once to find where the storages start (and
 * so where each lies), then with their places known.
 */
function readLegacy<T>(
  source: ByteSource,
  file: string,
  make: (range: TensorRange) => T,
): PickleData<T> {
  const prefix = source.read(0, Math.min(source.size, LEGACY_PICKLE_LIMIT));
  if (!LEGACY_MAGIC.every((byte, i) => prefix[i] === byte))
    throw new FormatError(
      file,
      'a pickle that is not a PyTorch file (neither a torch.save zip archive nor the legacy format)',
    );
  const cursor = new PickleCursor(prefix, file);
  const anySize = () => Number.MAX_SAFE_INTEGER;
  const skipped: StorageLookup<TensorSlice> = { size: anySize, tensor: (slice) => slice };
  const legacy = (what: string) => `legacy torch file: ${what}`;
  for (let i = 0; i < 3; i++) {
    if (cursor.done()) throw new FormatError(file, legacy('truncated before its pickle'));
    if (i === 0) skipMagic(cursor);
    else readTorchPickle(cursor, skipped); // the version and the system information
  }
  const main = cursor.at;
  const slices: TensorSlice[] = [];
  readTorchPickle(cursor, { size: anySize, tensor: (slice) => slices.push(slice) });
  const keys = readTorchPickle(cursor, skipped);
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string'))
    throw new FormatError(file, legacy('the storage key list is not a list of strings'));
  const storages = legacyStorages(source, file, cursor.at, keys, slices);
  return readTorchPickle(new PickleCursor(prefix.subarray(main), file), {
    size: (key) => storages.get(key)?.size,
    tensor: (slice) => make(rangeOf(slice, storages.get(slice.storage)!.offset)),
  });
}

/** LONG1 0x1950a86a20f9469cfc6c exceeds 2^53, so the magic pickle is compared, not read. */
function skipMagic(cursor: PickleCursor): void {
  cursor.take(LEGACY_MAGIC.length);
  if (cursor.u8() !== 0x2e) throw new FormatError(cursor.file, 'legacy torch file: bad magic');
}

/** Each storage: an 8-byte element count, then its bytes, in the order of the key list. */
function legacyStorages(
  source: ByteSource,
  file: string,
  start: number,
  keys: readonly string[],
  slices: readonly TensorSlice[],
): Map<string, ZipMember> {
  const width = new Map(slices.map((slice) => [slice.storage, DTYPE_SIZE[slice.dtype]]));
  const storages = new Map<string, ZipMember>();
  let at = start;
  for (const key of keys) {
    const count = source.read(at, 8);
    if (count.byteLength < 8)
      throw new FormatError(file, `legacy torch file: truncated at storage ${key}`);
    const elements = Number(new DataView(count.buffer, count.byteOffset, 8).getBigUint64(0, true));
    const size = elements * (width.get(key) ?? 1);
    if (!Number.isSafeInteger(size) || at + 8 + size > source.size)
      throw new FormatError(
        file,
        `legacy torch file: storage ${key} needs ${size} bytes but the file ends first (truncated)`,
      );
    storages.set(key, { offset: at + 8, size });
    at += 8 + size;
  }
  return storages;
}
