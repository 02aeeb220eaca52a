/**
 * `.npz` archives read by positioned reads instead of whole: the zip's central directory (ZIP64
 * records included, which numpy writes), then each `.npy` member's local header and preamble,
 * never the data of members not asked for. Learning a 200 MB shard's shape this way reads a few
 * kilobytes. Stored members (`np.savez`) and deflated ones (`np.savez_compressed`, of which only
 * the first bytes are inflated) both work.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { Inflate, inflateSync } from 'fflate';
import { parseDescr, shapeSize } from './dtype.js';
import { FormatError } from './errors.js';
import { readAt } from './io.js';
import type { NpyHeader } from './npy-header.js';
import { MAX_HEADER_BYTES, parseNpy, parseNpyPreamble } from './npy.js';
import type { NpyArray } from './types.js';
import { readZipDirectory, type ZipMember } from './zip-directory.js';

export interface NpzHeaders {
  /** Every `.npy` member's header, keyed by member name without `.npy`. */
  headers: Map<string, NpyHeader>;
  /** The members named in `load` that exist, parsed whole. */
  arrays: Map<string, NpyArray>;
}

/** First read of a member: enough for any ordinary `.npy` preamble (numpy pads it to 64 bytes). */
const FIRST_PREFIX = 4096;
/** Compressed bytes fed to the inflater at a time while looking for a preamble. */
const INFLATE_CHUNK = 1 << 16;

/**
 * Reads the `.npy` headers of an `.npz` archive's members, and parses whole only the members in
 * `load`. Fails with a FormatError naming the file (or `file:member.npy`) on an archive that is
 * truncated, is not a zip, or holds a member shorter than its header says.
 *
 * @example (await readNpzHeaders('shard.npz', ['doclens'])).headers.get('features')?.shape
 */
export async function readNpzHeaders(
  path: string,
  load: readonly string[] = [],
): Promise<NpzHeaders> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const members = await readZipDirectory(handle, size, path);
    const result: NpzHeaders = { headers: new Map(), arrays: new Map() };
    for (const member of members) {
      if (!member.name.endsWith('.npy')) continue;
      const key = member.name.slice(0, -'.npy'.length);
      const label = `${path}:${member.name}`;
      const start = await memberDataStart(handle, member, size, label);
      try {
        if (load.includes(key)) {
          const bytes = await readMember(handle, member, start);
          result.arrays.set(key, parseNpy(bytes, label, { ownsInput: true }));
        }
        result.headers.set(key, await readMemberHeader(handle, member, start, label));
      } catch (error) {
        if (error instanceof FormatError) throw error;
        throw new FormatError(label, `unreadable .npz member: ${(error as Error).message}`);
      }
    }
    return result;
  } finally {
    await handle.close();
  }
}

/** Where a member's (possibly compressed) bytes start, checked to lie within the file. */
async function memberDataStart(
  handle: FileHandle,
  member: ZipMember,
  fileSize: number,
  label: string,
): Promise<number> {
  const local = await readAt(handle, member.localOffset, 30);
  const view = new DataView(local.buffer, local.byteOffset, local.byteLength);
  if (local.byteLength < 30 || view.getUint32(0, true) !== 0x04034b50)
    throw new FormatError(label, 'not a readable .npz (zip) archive: bad local file header');
  const start = member.localOffset + 30 + view.getUint16(26, true) + view.getUint16(28, true);
  const end = start + member.compressedSize;
  if (end > fileSize)
    throw new FormatError(
      label,
      `truncated .npz: the member ends at byte ${end} but the file has ${fileSize} bytes`,
    );
  return start;
}

/** A member's header, checked against the member's length so a short member fails here. */
async function readMemberHeader(
  handle: FileHandle,
  member: ZipMember,
  start: number,
  label: string,
): Promise<NpyHeader> {
  let prefix = await readPrefix(handle, member, start, FIRST_PREFIX);
  let preamble;
  try {
    preamble = parseNpyPreamble(prefix, label);
  } catch (error) {
    if (prefix.byteLength < FIRST_PREFIX) throw error;
    prefix = await readPrefix(handle, member, start, 12 + MAX_HEADER_BYTES);
    preamble = parseNpyPreamble(prefix, label);
  }
  const { header, dataOffset } = preamble;
  const descr = parseDescr(header.descr, label);
  if (descr.char !== 'O') {
    const needed = shapeSize(header.shape, label) * descr.size;
    const body = member.size - dataOffset;
    if (body < needed)
      throw new FormatError(label, `truncated .npy data: ${body} of ${needed} bytes`);
  }
  return header;
}

/** The first `length` uncompressed bytes of a member (fewer if it is shorter). */
async function readPrefix(
  handle: FileHandle,
  member: ZipMember,
  start: number,
  length: number,
): Promise<Uint8Array> {
  const want = Math.min(length, member.size);
  if (member.method === 0) return readAt(handle, start, want);
  const parts: Uint8Array[] = [];
  let have = 0;
  const inflater = new Inflate((chunk) => {
    parts.push(chunk);
    have += chunk.byteLength;
  });
  for (let at = 0; at < member.compressedSize && have < want; at += INFLATE_CHUNK) {
    const take = Math.min(INFLATE_CHUNK, member.compressedSize - at);
    inflater.push(await readAt(handle, start + at, take), at + take >= member.compressedSize);
  }
  const out = new Uint8Array(Math.min(want, have));
  let at = 0;
  for (const part of parts) {
    if (at >= out.byteLength) break;
    out.set(part.subarray(0, out.byteLength - at), at);
    at += part.byteLength;
  }
  return out;
}

/** A whole member, inflated if deflated. */
async function readMember(
  handle: FileHandle,
  member: ZipMember,
  start: number,
): Promise<Uint8Array> {
  const raw = await readAt(handle, start, member.compressedSize);
  return member.method === 0 ? raw : inflateSync(raw, { out: new Uint8Array(member.size) });
}
