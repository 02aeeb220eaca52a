import { open, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openIndex, saveIndex, trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { PagedRows } from '../../src/vector-index/paged-rows.js';
import { randomVectors } from './helpers.js';

const DIM = 16;
const data = randomVectors(3000, DIM, 21);
const queries = randomVectors(25, DIM, 22);
const ids = Array.from({ length: 3000 }, (_, i) => `${i}`);
const dirs: string[] = [];
async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-paged-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('an index past its memory budget is read from its files', () => {
  it.each<[string, Metric]>([
    ['Flat', 'ip'],
    ['Flat', 'l2'],
    ['SQfp16', 'ip'],
    ['SQ8', 'l2'],
    ['IVF16,Flat', 'l2'],
    ['IVF16,SQfp16', 'ip'],
    ['IVF16,SQ8', 'ip'],
    ['IVF16,PQ4', 'l2'],
  ])('%s (%s) answers as in memory, holding at most the budget', async (factory, metric) => {
    const dir = await tempDir();
    const built = trainAndAdd(factory, data, DIM, metric, { seed: 3, kmeansIterations: 4 });
    await saveIndex(built, ids, dir);
    const memory = (await openIndex(dir)).index;
    // 16 blocks of 64 KiB is the smallest cache: a budget under the rows pages them.
    const budget = 4096;
    const paged = (await openIndex(dir, { memoryBudget: budget })).index;
    expect(paged.rows).toBeInstanceOf(PagedRows);
    expect(memory.rows instanceof PagedRows).toBe(false);
    for (const k of [1, 10, 3000]) {
      const options = factory.startsWith('IVF') ? { nprobe: 4 } : {};
      const expected = memory.search(queries, k, options);
      const actual = paged.search(queries, k, options);
      if (factory !== 'Flat') expect(actual).toEqual(expected);
      // Float32 Flat in memory runs the shared-memory kernel, which sums in another order:
      // the same scores to float32 rounding (near ties may swap).
      else actual.scores.forEach((score, i) => expect(score).toBeCloseTo(expected.scores[i]!, 5));
    }
    for (const position of [0, 1234, 2999])
      expect(paged.vector?.(position)).toEqual(memory.vector?.(position));
    expect(paged.rows!.residentBytes).toBeGreaterThan(0);
    expect(paged.rows!.residentBytes).toBeLessThanOrEqual(16 * 64 * 1024);
    paged.rows!.close?.();
    expect(() => paged.search(queries, 10)).toThrow();
  });

  it('a budget at least the rows keeps them in memory', async () => {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('SQ8', data, DIM, 'ip'), ids, dir);
    const { index } = await openIndex(dir, { memoryBudget: 3000 * DIM });
    expect(index.rows instanceof PagedRows).toBe(false);
  });

  it('a damaged rows file is refused at open, naming it', async () => {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('IVF16,SQ8', data, DIM, 'ip', { seed: 3 }), ids, dir);
    const path = join(dir, 'list-vectors.sq8');
    const bytes = await readFile(path);
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(path, bytes);
    await expect(openIndex(dir, { memoryBudget: 4096 })).rejects.toThrow(
      /checksum mismatch in list-vectors\.sq8/,
    );
    await truncate(path, 100);
    await expect(openIndex(dir, { memoryBudget: 4096 })).rejects.toThrow(
      /list-vectors\.sq8 has 100 bytes/,
    );
  });
});

describe('paged rows', () => {
  it('reads rows past 4 GiB of a file (a file with holes)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'big.rows');
    const rowBytes = 24;
    const count = Math.ceil((2 ** 32 + 2 ** 20) / rowBytes);
    await writeFile(path, '');
    await truncate(path, count * rowBytes);
    // Rows written around the 4 GiB mark and at the end; everything else is a hole (zeros).
    const marked = [Math.floor(2 ** 32 / rowBytes) - 1, Math.floor(2 ** 32 / rowBytes), count - 1];
    const handle = await open(path, 'r+');
    for (const row of marked)
      await handle.write(
        new Uint8Array(rowBytes).fill((row % 251) + 1),
        0,
        rowBytes,
        row * rowBytes,
      );
    await handle.close();
    const rows = new PagedRows(path, count, rowBytes, 1 << 20);
    for (const row of marked)
      expect(rows.row(row)).toEqual(new Uint8Array(rowBytes).fill((row % 251) + 1));
    const seen: number[] = [];
    rows.scan(marked[0]!, 2, (bytes, byteOffset, first, n) => {
      for (let i = 0; i < n; i++) seen.push(bytes[byteOffset + i * rowBytes]!, first + i);
    });
    expect(seen).toEqual([(marked[0]! % 251) + 1, marked[0], (marked[1]! % 251) + 1, marked[1]]);
    expect(rows.row(5)).toEqual(new Uint8Array(rowBytes));
    rows.close();
  });

  it('a file cut short fails the read, naming the file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'short.rows');
    await writeFile(path, new Uint8Array(100));
    const rows = new PagedRows(path, 10, 16, 1 << 20);
    expect(() => rows.row(9)).toThrow(/short\.rows ends before byte 160/);
    rows.close();
  });
});
