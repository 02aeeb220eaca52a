/**
 * The zip container of PyTorch files (`torch.save` since 1.6, `pytorch_model.bin`): members
 * are stored uncompressed, so each member is a range of the file. The directory is read through
 * a `ByteSource`: a buffer (a file read whole, whose members are then views, never copies) or
 * an open file (a checkpoint of gigabytes, whose tensors stay on disk). ZIP64 records (files or
 * members over 4 GiB) are read too.
 */
import { readSync } from 'node:fs';
import { FormatError } from 'irserve/plugin';

/** Random access to a file's bytes: `read` returns exactly `length` bytes or throws. */
export interface ByteSource {
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
}

/** Where a stored member's data lies in the file. */
export interface ZipMember {
  readonly offset: number;
  readonly size: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const MAX_TAIL = 22 + 0xffff;

interface Directory {
  entries: number;
  offset: number;
  size: number;
}

/**
 * A buffer as a ByteSource (reads are views).
 *
 * @example readZipDirectory(bufferSource(bytes), 'centroids.pt')
 */
export function bufferSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.byteLength,
    read: (offset, length) => bytes.subarray(offset, offset + length),
  };
}

/**
 * An open file as a ByteSource (positioned reads; for the few small records of a directory).
 *
 * @example readZipDirectory(fileSource(fd, size), 'pytorch_model.bin')
 */
export function fileSource(fd: number, size: number): ByteSource {
  return {
    size,
    read(offset, length) {
      const out = new Uint8Array(length);
      let at = 0;
      while (at < length) {
        const read = readSync(fd, out, at, length - at, offset + at);
        if (read === 0) break;
        at += read;
      }
      return out.subarray(0, at);
    },
  };
}

/**
 * The members of a stored (uncompressed) zip archive, by name, with their data's place.
 *
 * @example readZipDirectory(bufferSource(bytes), 'centroids.pt').get('centroids/data.pkl')
 */
export function readZipDirectory(source: ByteSource, file: string): Map<string, ZipMember> {
  const fail = (why: string): never => {
    throw new FormatError(file, `not a PyTorch zip archive: ${why}`);
  };
  const directory = findDirectory(source, fail);
  const bytes = source.read(directory.offset, directory.size);
  if (bytes.byteLength < directory.size) fail('central directory truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const members = new Map<string, ZipMember>();
  const names = new TextDecoder();
  let at = 0;
  for (let i = 0; i < directory.entries; i++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL)
      fail(`central directory entry ${i} is damaged (the file may be truncated)`);
    const method = view.getUint16(at + 10, true);
    let size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    let local = view.getUint32(at + 42, true);
    if (at + 46 + nameLength + extraLength > view.byteLength) fail('central directory truncated');
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (size === 0xffffffff || local === 0xffffffff) {
      ({ size, local } = zip64Extra(
        view,
        at + 46 + nameLength,
        extraLength,
        view.getUint32(at + 24, true),
        size,
        local,
        fail,
      ));
    }
    if (method !== 0)
      fail(`member ${name} is compressed (method ${method}); torch.save stores members`);
    members.set(name, memberData(source, local, size, name, fail));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

/**
 * The members of a stored zip archive held in memory, as views of `bytes`.
 *
 * @example readZipMembers(await readWhole('centroids.pt'), 'centroids.pt').get('centroids/data.pkl')
 */
export function readZipMembers(bytes: Uint8Array, file: string): Map<string, Uint8Array> {
  const members = new Map<string, Uint8Array>();
  for (const [name, { offset, size }] of readZipDirectory(bufferSource(bytes), file))
    members.set(name, bytes.subarray(offset, offset + size));
  return members;
}

function findDirectory(source: ByteSource, fail: (why: string) => never): Directory {
  const tailStart = Math.max(0, source.size - MAX_TAIL);
  const tail = source.read(tailStart, source.size - tailStart);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  for (let at = view.byteLength - 22; at >= 0; at--) {
    if (view.getUint32(at, true) !== EOCD) continue;
    let entries = view.getUint16(at + 10, true);
    let size = view.getUint32(at + 12, true);
    let offset = view.getUint32(at + 16, true);
    if (entries === 0xffff || offset === 0xffffffff || size === 0xffffffff) {
      if (at < 20 || view.getUint32(at - 20, true) !== ZIP64_LOCATOR) fail('ZIP64 locator missing');
      const recordAt = Number(view.getBigUint64(at - 20 + 8, true));
      const record = source.read(recordAt, 56);
      const rv = new DataView(record.buffer, record.byteOffset, record.byteLength);
      if (record.byteLength < 56 || rv.getUint32(0, true) !== ZIP64_EOCD)
        fail('ZIP64 end record damaged');
      entries = Number(rv.getBigUint64(32, true));
      size = Number(rv.getBigUint64(40, true));
      offset = Number(rv.getBigUint64(48, true));
    }
    if (offset + size > source.size) fail('central directory lies beyond the end of the file');
    return { entries, offset, size };
  }
  return fail('no end-of-central-directory record (truncated, or not a zip file)');
}

/** Sizes and offsets that did not fit in 32 bits, from the ZIP64 extra field. */
function zip64Extra(
  view: DataView,
  start: number,
  length: number,
  uncompressed: number,
  size: number,
  local: number,
  fail: (why: string) => never,
): { size: number; local: number } {
  let at = start;
  while (at + 4 <= start + length) {
    const id = view.getUint16(at, true);
    const fieldLength = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let p = at + 4;
      const next = (): number => {
        const value = Number(view.getBigUint64(p, true));
        p += 8;
        return value;
      };
      // The field lists only the values that overflowed, in this order.
      if (uncompressed === 0xffffffff) next();
      const fullSize = size === 0xffffffff ? next() : size;
      return { size: fullSize, local: local === 0xffffffff ? next() : local };
    }
    at += 4 + fieldLength;
  }
  return fail('ZIP64 sizes missing from a large member');
}

function memberData(
  source: ByteSource,
  local: number,
  size: number,
  name: string,
  fail: (why: string) => never,
): ZipMember {
  const header = source.read(local, 30);
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (header.byteLength < 30 || view.getUint32(0, true) !== LOCAL)
    fail(`local header of ${name} is damaged`);
  const offset = local + 30 + view.getUint16(26, true) + view.getUint16(28, true);
  if (offset + size > source.size)
    fail(`member ${name} needs ${size} bytes but the file ends first (truncated)`);
  return { offset, size };
}
