/**
 * The zip container of PyTorch's `.pt` files (`torch.save` since 1.6): members are stored
 * uncompressed and their data aligned to 64 bytes, so each member is returned as a view of
 * the file's one buffer: a chunk file of residuals is never copied. ZIP64 records (files or
 * members over 4 GiB) are read too.
 */
import { FormatError } from '@irserve/dense';

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
}

/**
 * The members of a stored (uncompressed) zip archive, by name, as views of `bytes`.
 *
 * @example readZipMembers(await readWhole('centroids.pt'), 'centroids.pt').get('centroids/data.pkl')
 */
export function readZipMembers(bytes: Uint8Array, file: string): Map<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (why: string): never => {
    throw new FormatError(file, `not a PyTorch zip archive: ${why}`);
  };
  const directory = findDirectory(view, fail);
  const members = new Map<string, Uint8Array>();
  const names = new TextDecoder();
  let at = directory.offset;
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
    members.set(name, memberData(bytes, view, local, size, name, fail));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

function findDirectory(view: DataView, fail: (why: string) => never): Directory {
  const lowest = Math.max(0, view.byteLength - MAX_TAIL);
  for (let at = view.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) !== EOCD) continue;
    let entries = view.getUint16(at + 10, true);
    let offset = view.getUint32(at + 16, true);
    if ((entries === 0xffff || offset === 0xffffffff) && at >= 20) {
      if (view.getUint32(at - 20, true) !== ZIP64_LOCATOR) fail('ZIP64 locator missing');
      const record = Number(view.getBigUint64(at - 20 + 8, true));
      if (record + 56 > view.byteLength || view.getUint32(record, true) !== ZIP64_EOCD)
        fail('ZIP64 end record damaged');
      entries = Number(view.getBigUint64(record + 32, true));
      offset = Number(view.getBigUint64(record + 48, true));
    }
    if (offset > view.byteLength) fail('central directory lies beyond the end of the file');
    return { entries, offset };
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
  bytes: Uint8Array,
  view: DataView,
  local: number,
  size: number,
  name: string,
  fail: (why: string) => never,
): Uint8Array {
  if (local + 30 > view.byteLength || view.getUint32(local, true) !== LOCAL)
    fail(`local header of ${name} is damaged`);
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  if (start + size > bytes.byteLength)
    fail(`member ${name} needs ${size} bytes but the file ends first (truncated)`);
  return bytes.subarray(start, start + size);
}
