/**
 * The `.offsetmap` file: an 8-byte magic, a JSON header (corpus size and mtime, id field, counts,
 * the SHA-256 of the arrays) and the typed arrays, each 8-byte aligned, so a load is one read
 * and one hash, no parsing. A file that is truncated, does not match its header or its checksum
 * (flipped bytes) loads as undefined, and is rebuilt: a damaged map is never served.
 */
import { createHash } from 'node:crypto';
import { readFile, type FileHandle } from 'node:fs/promises';
import { OffsetMap, type OffsetMapArrays } from './offset-map.js';

const MAGIC = 'IRSOMAP1';
/** Version 2 added the checksum; version 1 files are rebuilt. */
const VERSION = 2;

export interface OffsetMapStamp {
  /** Corpus size in bytes and mtime (ms) when the map was built. */
  size: number;
  mtimeMs: number;
  idField: string;
}

interface Header extends OffsetMapStamp {
  version: number;
  count: number;
  idBytes: number;
  tableSize: number;
  /** SHA-256 (hex) of everything after the header: the arrays and their padding. */
  sha256: string;
}

const pad8 = (n: number): number => (n + 7) & ~7;

function sections(header: Header): { name: keyof OffsetMapArrays; bytes: number }[] {
  return [
    { name: 'lineStart', bytes: header.count * 8 },
    { name: 'idStart', bytes: (header.count + 1) * 4 },
    { name: 'lineLength', bytes: header.count * 4 },
    { name: 'table', bytes: header.tableSize * 4 },
    { name: 'idBytes', bytes: header.idBytes },
  ];
}

function headerBytes(header: Header): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const out = Buffer.alloc(pad8(8 + 4 + json.length));
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  return out;
}

/** Writes a map to an open (empty) file. */
export async function writeOffsetMap(
  handle: FileHandle,
  map: OffsetMap,
  stamp: OffsetMapStamp,
): Promise<void> {
  const a = map.arrays;
  const shape = { count: a.count, idBytes: a.idBytes.length, tableSize: a.table.length };
  const header: Header = { ...stamp, version: VERSION, ...shape, sha256: '' };
  const chunks: Uint8Array[] = [];
  for (const { name, bytes } of sections(header)) {
    const array = a[name] as Uint8Array | Uint32Array | Float64Array;
    chunks.push(new Uint8Array(array.buffer, array.byteOffset, bytes));
    const padding = pad8(bytes) - bytes;
    if (padding > 0) chunks.push(Buffer.alloc(padding));
  }
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  header.sha256 = hash.digest('hex');
  await handle.write(headerBytes(header));
  for (const chunk of chunks) await handle.write(chunk);
}

/** Whether the arrays after the header hash to the header's checksum. */
function intact(file: Buffer, bodyStart: number, header: Header): boolean {
  if (typeof header.sha256 !== 'string') return false;
  const digest = createHash('sha256').update(file.subarray(bodyStart)).digest('hex');
  return digest === header.sha256;
}

/** Whether the header's counts are non-negative integers (a damaged header must not size arrays). */
function saneShape(header: Header): boolean {
  return [header.count, header.idBytes, header.tableSize].every(
    (n) => Number.isSafeInteger(n) && n >= 0,
  );
}

/**
 * Loads a map whose stamp matches `expected`: 'missing' when there is no file, 'invalid' when
 * it is stale, truncated or damaged (either way the caller rebuilds it).
 *
 * @example
 * const map = await readOffsetMap(path, { size, mtimeMs, idField: 'id' });
 * if (typeof map === 'string') rebuild();
 */
export async function readOffsetMap(
  path: string,
  expected: OffsetMapStamp,
): Promise<OffsetMap | 'missing' | 'invalid'> {
  let file: Buffer;
  try {
    file = await readFile(path);
  } catch {
    return 'missing';
  }
  return decodeOffsetMap(file, expected) ?? 'invalid';
}

/** The map in `file`, or undefined when it is stale or damaged. */
function decodeOffsetMap(file: Buffer, expected: OffsetMapStamp): OffsetMap | undefined {
  if (file.length < 12 || file.toString('latin1', 0, 8) !== MAGIC) return undefined;
  let header: Header;
  try {
    header = JSON.parse(file.toString('utf8', 12, 12 + file.readUInt32LE(8))) as Header;
  } catch {
    return undefined;
  }
  const stale =
    header.version !== VERSION ||
    header.size !== expected.size ||
    header.mtimeMs !== expected.mtimeMs ||
    header.idField !== expected.idField;
  if (stale || !saneShape(header)) return undefined;
  if (file.byteOffset % 8 !== 0) file = Buffer.from(new Uint8Array(file).buffer);
  let pos = pad8(12 + file.readUInt32LE(8));
  const total = sections(header).reduce((sum, s) => sum + pad8(s.bytes), pos);
  if (file.length !== total || !intact(file, pos, header)) return undefined;
  const at = (bytes: number): number => {
    const start = pos;
    pos += pad8(bytes);
    return file.byteOffset + start;
  };
  const buffer = file.buffer;
  const lineStart = new Float64Array(buffer, at(header.count * 8), header.count);
  const idStart = new Uint32Array(buffer, at((header.count + 1) * 4), header.count + 1);
  const lineLength = new Uint32Array(buffer, at(header.count * 4), header.count);
  const table = new Uint32Array(buffer, at(header.tableSize * 4), header.tableSize);
  const idBytes = new Uint8Array(buffer, at(header.idBytes), header.idBytes);
  return new OffsetMap({ count: header.count, idBytes, idStart, lineStart, lineLength, table });
}
