/**
 * A file past 4 GiB (no Buffer or Uint8Array can hold it on Node 20) is opened and read at
 * offsets past 4 GiB, whole ranges checked page by page. The file is written by hand here, from
 * the format's description (an independent check of the reader), with holes for its zero
 * pages, so it takes a few KB of disk and the test stays cheap.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ArrayFile, PageCache } from '../../src/storage/index.js';

const PAGE = 16384;
const HEAD_OFFSET = 0;
const BIG_OFFSET = 16;
/** Float32 elements of the big section: 4 GiB and 64 KiB of them. */
const BIG_LENGTH = (2 ** 32 + 2 ** 16) / 4;
/** Element index -> value of the few non-zero elements. */
const MARKS = new Map([
  [7, 1.5],
  [2 ** 30 + 5, 2.5], // byte 4 GiB + 36
  [BIG_LENGTH - 1, 3.5],
]);

let dir: string;
let path: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-large-file-'));
  path = join(dir, 'large.arr');
  await writeHoleyFile(path);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeHoleyFile(file: string): Promise<void> {
  const dataBytes = BIG_OFFSET + BIG_LENGTH * 4;
  const pages = Math.ceil(dataBytes / PAGE);
  const content = new Map<number, Buffer>(); // page number -> its bytes, for non-zero pages
  const pageBytes = (page: number) => {
    let bytes = content.get(page);
    if (!bytes) content.set(page, (bytes = Buffer.alloc(Math.min(PAGE, dataBytes - page * PAGE))));
    return bytes;
  };
  for (const [i, v] of [1, 2, 3, 4].entries()) pageBytes(0).writeUInt32LE(v, HEAD_OFFSET + 4 * i);
  for (const [index, value] of MARKS) {
    const at = BIG_OFFSET + 4 * index;
    pageBytes(Math.floor(at / PAGE)).writeFloatLE(value, at % PAGE);
  }
  const zeroCrc = crc32(Buffer.alloc(PAGE));
  const table = new Uint32Array(pages);
  const lastBytes = dataBytes - (pages - 1) * PAGE;
  for (let p = 0; p < pages; p++)
    table[p] = content.has(p)
      ? crc32(content.get(p)!)
      : p === pages - 1
        ? crc32(Buffer.alloc(lastBytes))
        : zeroCrc;
  const tableOffset = Math.ceil(dataBytes / 8) * 8;
  const footer = Buffer.from(
    JSON.stringify({
      format: 'irserve-array-file',
      version: 1,
      kind: 'test',
      endian: 'le',
      pageSize: PAGE,
      dataBytes,
      pageTable: {
        offset: tableOffset,
        pages,
        crc32: crc32(new Uint8Array(table.buffer)),
      },
      sections: [
        { name: 'head', type: 'u32', offset: HEAD_OFFSET, length: 4 },
        { name: 'big', type: 'f32', offset: BIG_OFFSET, length: BIG_LENGTH },
      ],
      meta: null,
    }),
  );
  const trailer = Buffer.alloc(16);
  trailer.writeUInt32LE(footer.length, 0);
  trailer.writeUInt32LE(crc32(footer), 4);
  trailer.write('IRSARR1\n', 8, 'latin1');
  const handle = await open(file, 'w');
  for (const [page, bytes] of content) await handle.write(bytes, 0, bytes.length, page * PAGE);
  const tail = Buffer.concat([Buffer.from(table.buffer), footer, trailer]);
  await handle.write(tail, 0, tail.length, tableOffset);
  await handle.close();
}

it('opens a file past 4 GiB and reads it past 4 GiB, whole ranges and paged', async () => {
  const file = await ArrayFile.open(path, { kind: 'test' });
  expect(file.bytes).toBeGreaterThan(2 ** 32);
  expect([...(await file.read('head', 'u32'))]).toEqual([1, 2, 3, 4]);
  const far = 2 ** 30;
  expect([...(await file.readRange('big', 'f32', far, far + 8))]).toEqual([
    0, 0, 0, 0, 0, 2.5, 0, 0,
  ]);
  const paged = file.paged('big', 'f32', new PageCache({ budgetBytes: 1 << 20, pageSize: PAGE }));
  expect(paged.at(7)).toBe(1.5);
  expect(paged.at(far + 5)).toBe(2.5);
  expect(paged.at(BIG_LENGTH - 1)).toBe(3.5);
  expect([...paged.read(BIG_LENGTH - 3, BIG_LENGTH)]).toEqual([0, 0, 3.5]);
  await file.close();
});

it('detects damage past 4 GiB', async () => {
  const handle = await open(path, 'r+');
  const at = BIG_OFFSET + 4 * (2 ** 30 + 100);
  await handle.write(Buffer.from([1]), 0, 1, at);
  await handle.close();
  const file = await ArrayFile.open(path);
  const far = 2 ** 30;
  await expect(file.readRange('big', 'f32', far, far + 200)).rejects.toThrow(
    /do not match their checksum/,
  );
  const paged = file.paged('big', 'f32', new PageCache({ budgetBytes: 1 << 20, pageSize: PAGE }));
  expect(() => paged.at(far + 100)).toThrow(/do not match their checksum/);
  await file.close();
});
