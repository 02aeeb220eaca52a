/**
 * A file past 4 GiB (no Buffer or Uint8Array can hold it on Node 20) is opened and read at
 * offsets past 4 GiB, whole ranges checked page by page. The file is written by hand, from the
 * format's description, with holes for its zero pages (test/helpers/holey-array-file.ts), so it
 * takes a few KB of disk and the test stays cheap.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ArrayFile, PageCache } from '../../src/storage/index.js';
import { writeHoleyArrayFile } from '../helpers/holey-array-file.js';

const PAGE = 16384;
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
  const offsets = await writeHoleyArrayFile(file, {
    kind: 'test',
    pageSize: PAGE,
    sections: [
      { name: 'head', type: 'u32', length: 4, at: [[0, Uint32Array.of(1, 2, 3, 4)]] },
      {
        name: 'big',
        type: 'f32',
        length: BIG_LENGTH,
        at: [...MARKS].map(([index, value]) => [index, Float32Array.of(value)]),
      },
    ],
  });
  expect(offsets).toEqual([0, BIG_OFFSET]);
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
