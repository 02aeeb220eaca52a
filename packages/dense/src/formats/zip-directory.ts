/**
 * A zip archive's central directory: each member's name, compression method, sizes and where
 * its local header is, read from the end-of-central-directory record (and its ZIP64 form, which
 * numpy writes for every `.npz`) with a few positioned reads.
 */
import type { FileHandle } from 'node:fs/promises';
import { FormatError } from './errors.js';
import { readAt } from './io.js';

export interface ZipMember {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  compressedSize: number;
  /** Uncompressed size. */
  size: number;
  localOffset: number;
}

interface Directory {
  entries: number;
  size: number;
  offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
/** The end record (22 bytes), its longest comment, and the ZIP64 locator before it. */
const TAIL = 22 + 0xffff + 20;

function unreadable(file: string, why: string): FormatError {
  return new FormatError(file, `not a readable .npz (zip) archive: ${why}`);
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Lists the members of the zip archive open in `handle` (`size` bytes long). */
export async function readZipDirectory(
  handle: FileHandle,
  size: number,
  file: string,
): Promise<ZipMember[]> {
  const directory = await findDirectory(handle, size, file);
  if (directory.offset + directory.size > size)
    throw unreadable(file, `truncated: the central directory ends past the file's ${size} bytes`);
  const bytes = await readAt(handle, directory.offset, directory.size);
  const members: ZipMember[] = [];
  let at = 0;
  for (let i = 0; i < directory.entries; i++) {
    const { member, next } = parseEntry(bytes, at, file);
    members.push(member);
    at = next;
  }
  return members;
}

/** The central directory's place, from the end record or its ZIP64 form. */
async function findDirectory(handle: FileHandle, size: number, file: string): Promise<Directory> {
  const tailStart = Math.max(0, size - TAIL);
  const tail = await readAt(handle, tailStart, size - tailStart);
  const data = view(tail);
  let end = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (data.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw unreadable(file, 'no end of central directory record (truncated?)');
  const classic = {
    entries: data.getUint16(end + 10, true),
    size: data.getUint32(end + 12, true),
    offset: data.getUint32(end + 16, true),
  };
  if (end < 20 || data.getUint32(end - 20, true) !== ZIP64_LOCATOR) return classic;
  const recordAt = Number(data.getBigUint64(end - 20 + 8, true));
  const record = await readAt(handle, recordAt, 56);
  const zip64 = view(record);
  if (record.byteLength < 56 || zip64.getUint32(0, true) !== ZIP64_EOCD)
    throw unreadable(file, 'bad ZIP64 end of central directory record');
  return {
    entries: Number(zip64.getBigUint64(32, true)),
    size: Number(zip64.getBigUint64(40, true)),
    offset: Number(zip64.getBigUint64(48, true)),
  };
}

/** One central-directory entry at `at`, with the ZIP64 extra field's sizes where they apply. */
function parseEntry(
  bytes: Uint8Array,
  at: number,
  file: string,
): { member: ZipMember; next: number } {
  const data = view(bytes);
  if (at + 46 > bytes.byteLength || data.getUint32(at, true) !== CENTRAL)
    throw unreadable(file, 'bad central directory entry');
  const flags = data.getUint16(at + 8, true);
  const method = data.getUint16(at + 10, true);
  const nameLength = data.getUint16(at + 28, true);
  const extraLength = data.getUint16(at + 30, true);
  const commentLength = data.getUint16(at + 32, true);
  const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
  if (flags & 1) throw unreadable(file, `member ${name} is encrypted`);
  if (method !== 0 && method !== 8)
    throw unreadable(file, `member ${name} uses compression method ${method}`);
  // Fields at 0xffffffff live in the ZIP64 extra field, in this order.
  const fields = [
    data.getUint32(at + 24, true),
    data.getUint32(at + 20, true),
    data.getUint32(at + 42, true),
  ];
  const extraStart = at + 46 + nameLength;
  for (let e = extraStart; e + 4 <= extraStart + extraLength;) {
    const id = data.getUint16(e, true);
    const length = data.getUint16(e + 2, true);
    if (id === 0x0001) {
      let field = e + 4;
      for (let f = 0; f < fields.length && field + 8 <= e + 4 + length; f++) {
        if (fields[f] !== 0xffffffff) continue;
        fields[f] = Number(data.getBigUint64(field, true));
        field += 8;
      }
    }
    e += 4 + length;
  }
  const [size = 0, compressedSize = 0, localOffset = 0] = fields;
  return {
    member: { name, method, compressedSize, size, localOffset },
    next: extraStart + extraLength + commentLength,
  };
}
