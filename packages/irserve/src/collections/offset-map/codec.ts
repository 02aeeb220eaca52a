/**
 * The `.offsetmap` file: an 8-byte magic, a JSON header (corpus size and mtime, id field, counts)
 * and the typed arrays, each 8-byte aligned, so a load is one read and no parsing. A file that is
 * truncated or does not match its header loads as undefined (and is rebuilt).
 */
import { readFile, type FileHandle } from 'node:fs/promises';
import { OffsetMap, type OffsetMapArrays } from './offset-map.js';

const MAGIC = 'IRSOMAP1';
const VERSION = 1;

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
  const header: Header = {
    ...stamp,
    version: VERSION,
    count: a.count,
    idBytes: a.idBytes.length,
    tableSize: a.table.length,
  };
  await handle.write(headerBytes(header));
  for (const { name, bytes } of sections(header)) {
    const array = a[name] as Uint8Array | Uint32Array | Float64Array;
    await handle.write(new Uint8Array(array.buffer, array.byteOffset, bytes));
    const padding = pad8(bytes) - bytes;
    if (padding > 0) await handle.write(Buffer.alloc(padding));
  }
}

/** Loads a map whose stamp matches `expected`; undefined when missing, stale or damaged. */
export async function readOffsetMap(
  path: string,
  expected: OffsetMapStamp,
): Promise<OffsetMap | undefined> {
  let file: Buffer;
  try {
    file = await readFile(path);
  } catch {
    return undefined;
  }
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
  if (stale) return undefined;
  if (file.byteOffset % 8 !== 0) file = Buffer.from(new Uint8Array(file).buffer);
  let pos = pad8(12 + file.readUInt32LE(8));
  const total = sections(header).reduce((sum, s) => sum + pad8(s.bytes), pos);
  if (file.length !== total) return undefined;
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
