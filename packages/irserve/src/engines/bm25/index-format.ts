/**
 * The index file: one file, loaded with one read, its arrays used in place.
 *
 *   bytes 0-7    magic "IRSBM25\n"
 *   bytes 8-11   header length H (uint32, little endian)
 *   bytes 12..   header: JSON {version, key, stats, endian, sha256, arrays: [{name, offset, length}]}
 *   then         each array of ARRAY_NAMES, starting on an 8-byte boundary, in platform
 *                (little-endian) byte order
 *
 * Files are written to a temporary name and renamed, so a reader never sees half a file.
 * `sha256` covers every byte after the header (arrays and the zero padding between them): a
 * damaged file is refused with ERR_CONFIG naming it, never served.
 */
import { createHash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { IrserveError } from '../../errors.js';
import { ARRAY_NAMES, type IndexArrays, type IndexData, type IndexStats } from './index-data.js';

const MAGIC = 'IRSBM25\n';
/** Bump when the layout or the analysis code changes in a way that alters terms. */
export const FORMAT_VERSION = 2;

interface Header {
  version: number;
  endian: 'le' | 'be';
  key: string;
  stats: IndexStats;
  /** SHA-256 (hex) of the bytes from the first array to the end of the file. */
  sha256: string;
  arrays: { name: string; offset: number; length: number }[];
}

const CONSTRUCTORS = {
  termBytes: Uint8Array,
  termOffsets: Uint32Array,
  postingStart: Int32Array,
  postingDocs: Int32Array,
  postingTfs: Uint16Array,
  norms: Uint8Array,
  idBytes: Uint8Array,
  idOffsets: Uint32Array,
} as const;

const align8 = (n: number) => Math.ceil(n / 8) * 8;
const platformEndian = () => (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 'le' : 'be');

/** SHA-256 of the data as laid out in the file: each array, then zeros up to the next one. */
function dataDigest(index: IndexData, arrays: Header['arrays']): string {
  const hash = createHash('sha256');
  for (const [i, name] of ARRAY_NAMES.entries()) {
    const array = index[name];
    hash.update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    const next = arrays[i + 1];
    if (next) hash.update(Buffer.alloc(next.offset - arrays[i]!.offset - array.byteLength));
  }
  return hash.digest('hex');
}

/**
 * Writes `index` to `path` (via a temporary file and a rename). `key` identifies its inputs.
 *
 * @example
 * await writeIndexFile(join(dir, 'index.bm25'), data, await indexKey(source));
 */
export async function writeIndexFile(path: string, index: IndexData, key: string): Promise<void> {
  const arrays: Header['arrays'] = [];
  // The digest has a fixed length, so a placeholder settles the layout before it is computed.
  let sha256 = '0'.repeat(64);
  let headerJson = '';
  let dataStart = 0;
  // The header's own length moves the data; two passes settle it.
  for (let pass = 0; pass < 2; pass++) {
    arrays.length = 0;
    let offset = dataStart;
    for (const name of ARRAY_NAMES) {
      arrays.push({ name, offset, length: index[name].length });
      offset = align8(offset + index[name].byteLength);
    }
    const header: Header = {
      version: FORMAT_VERSION,
      endian: platformEndian(),
      key,
      stats: index.stats,
      sha256,
      arrays,
    };
    headerJson = JSON.stringify(header);
    dataStart = align8(12 + Buffer.byteLength(headerJson) + 64);
  }
  sha256 = dataDigest(index, arrays);
  headerJson = headerJson.replace('0'.repeat(64), sha256);
  const prefix = Buffer.alloc(arrays[0]!.offset);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(Buffer.byteLength(headerJson), 8);
  prefix.write(headerJson, 12, 'utf8');
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.write(prefix, 0, prefix.length, 0);
    for (const [i, name] of ARRAY_NAMES.entries()) {
      const array = index[name];
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      await writeAll(handle, bytes, arrays[i]!.offset);
    }
    await handle.close();
    await rename(temp, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}

async function writeAll(handle: Awaited<ReturnType<typeof open>>, bytes: Uint8Array, at: number) {
  const chunk = 1 << 30;
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await handle.write(
      bytes,
      done,
      Math.min(chunk, bytes.length - done),
      at + done,
    );
    done += bytesWritten;
  }
}

/** Reads the whole file into one buffer; undefined when it does not exist. */
async function readWhole(path: string): Promise<Uint8Array | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const bytes = new Uint8Array(size);
    for (let done = 0; done < size;) {
      const { bytesRead } = await handle.read(bytes, done, Math.min(1 << 30, size - done), done);
      if (bytesRead === 0) throw new Error(`${path}: file shrank while reading`);
      done += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Loads an index file when it exists and was built for `key`; otherwise undefined (the caller
 * rebuilds). A current file whose data does not match its checksum throws ERR_CONFIG naming it.
 * Arrays are views into the one buffer read.
 *
 * @example
 * const data = await readIndexFile(path, key); // undefined: build it
 */
export async function readIndexFile(path: string, key: string): Promise<IndexData | undefined> {
  const bytes = await readWhole(path);
  if (bytes === undefined || bytes.length < 12) return undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.toString('latin1', 0, 8) !== MAGIC) return undefined;
  const headerLength = buffer.readUInt32LE(8);
  let header: Header;
  try {
    header = JSON.parse(buffer.toString('utf8', 12, 12 + headerLength)) as Header;
  } catch {
    return undefined;
  }
  if (header.version !== FORMAT_VERSION || header.key !== key) return undefined;
  if (header.endian !== platformEndian()) return undefined;
  checkDigest(path, bytes, header);
  const arrays = viewArrays(bytes, header);
  return arrays === undefined
    ? undefined
    : { ...arrays, stats: header.stats, digest: header.sha256 };
}

function viewArrays(bytes: Uint8Array, header: Header): IndexArrays | undefined {
  const out: Partial<Record<keyof IndexArrays, unknown>> = {};
  for (const name of ARRAY_NAMES) {
    const entry = header.arrays.find((a) => a.name === name);
    if (entry === undefined) return undefined;
    const Ctor = CONSTRUCTORS[name];
    const end = entry.offset + entry.length * Ctor.BYTES_PER_ELEMENT;
    if (entry.offset % 8 !== 0 || end > bytes.length) return undefined;
    out[name] = new Ctor(
      bytes.buffer as ArrayBuffer,
      bytes.byteOffset + entry.offset,
      entry.length,
    );
  }
  return out as IndexArrays;
}

/** Throws ERR_CONFIG when the data after the header does not hash to the header's digest. */
function checkDigest(path: string, bytes: Uint8Array, header: Header): void {
  const start = header.arrays[0]?.offset;
  const digest =
    typeof start === 'number' && start >= 0 && start <= bytes.length
      ? createHash('sha256').update(bytes.subarray(start)).digest('hex')
      : undefined;
  if (digest !== undefined && digest === header.sha256) return;
  throw new IrserveError(
    'ERR_CONFIG',
    `bm25 index ${path} is damaged (its checksum does not match its data): delete the file and restart to rebuild it`,
  );
}
