/**
 * Writes an array file by hand, from the format's description (storage/array-file-format.ts),
 * with holes for its zero pages: files of many GB (past what a Buffer or a typed array holds)
 * cost a few KB of disk, so tests of large files stay cheap. Written independently of
 * ArrayFileWriter, it also checks the reader against the format rather than against the writer.
 */
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

type Values = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

export interface HoleySection {
  name: string;
  type: 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f64';
  /** Elements (zero unless set by `at`). */
  length: number;
  /** Element index -> the values written from there. */
  at?: [number, Values][];
}

const BYTES = { u8: 1, u16: 2, u32: 4, i32: 4, f32: 4, f64: 8 } as const;

/** Writes the file; returns the byte offset of each section. */
export async function writeHoleyArrayFile(
  path: string,
  {
    kind,
    pageSize = 16384,
    sections,
    meta = null,
  }: {
    kind: string;
    pageSize?: number;
    sections: HoleySection[];
    meta?: unknown;
  },
): Promise<number[]> {
  const offsets: number[] = [];
  let end = 0;
  for (const section of sections) {
    const offset = Math.ceil(end / 8) * 8;
    offsets.push(offset);
    end = offset + section.length * BYTES[section.type];
  }
  const dataBytes = end;
  const pages = Math.ceil(dataBytes / pageSize);
  const content = new Map<number, Buffer>();
  const pageBytes = (page: number) => {
    let bytes = content.get(page);
    if (!bytes)
      content.set(page, (bytes = Buffer.alloc(Math.min(pageSize, dataBytes - page * pageSize))));
    return bytes;
  };
  sections.forEach((section, s) => {
    for (const [index, values] of section.at ?? []) {
      const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
      const start = offsets[s]! + index * BYTES[section.type];
      for (let i = 0; i < bytes.length; i++)
        pageBytes(Math.floor((start + i) / pageSize))[(start + i) % pageSize] = bytes[i]!;
    }
  });
  const zeroCrc = crc32(Buffer.alloc(pageSize));
  const lastCrc = crc32(Buffer.alloc(dataBytes - (pages - 1) * pageSize));
  const table = new Uint32Array(pages);
  for (let p = 0; p < pages; p++)
    table[p] = content.has(p) ? crc32(content.get(p)!) : p === pages - 1 ? lastCrc : zeroCrc;
  const tableOffset = Math.ceil(dataBytes / 8) * 8;
  const footer = Buffer.from(
    JSON.stringify({
      format: 'irserve-array-file',
      version: 1,
      kind,
      endian: 'le',
      pageSize,
      dataBytes,
      pageTable: { offset: tableOffset, pages, crc32: crc32(new Uint8Array(table.buffer)) },
      sections: sections.map((s, i) => ({
        name: s.name,
        type: s.type,
        offset: offsets[i],
        length: s.length,
      })),
      meta,
    }),
  );
  const trailer = Buffer.alloc(16);
  trailer.writeUInt32LE(footer.length, 0);
  trailer.writeUInt32LE(crc32(footer), 4);
  trailer.write('IRSARR1\n', 8, 'latin1');
  const handle = await open(path, 'w');
  try {
    for (const [page, bytes] of content)
      await handle.write(bytes, 0, bytes.length, page * pageSize);
    const tail = Buffer.concat([Buffer.from(table.buffer), footer, trailer]);
    await handle.write(tail, 0, tail.length, tableOffset);
  } finally {
    await handle.close();
  }
  return offsets;
}
