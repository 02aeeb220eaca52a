import { existsSync, readFileSync } from 'node:fs';
import { open, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexStorage } from '../../src/engine/index-storage.js';
import type { HnswIndex } from '../../src/vector-index/index.js';
import { openIndex, saveIndex, trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { PagedRows } from '../../src/vector-index/paged-rows.js';
import { randomVectors, withoutPageChecksums } from './helpers.js';

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

  it.each(['HNSW16', 'HNSW16,SQ8'])(
    '%s past its budget is searched in its memory-mapped graph, as in memory',
    async (factory) => {
      const dir = await tempDir();
      await saveIndex(trainAndAdd(factory, data, DIM, 'ip', { seed: 3 }), ids, dir);
      const memory = (await openIndex(dir)).index as HnswIndex;
      const mapped = (await openIndex(dir, { memoryBudget: 4096 })).index as HnswIndex;
      expect([memory.mapped, mapped.mapped]).toEqual([false, true]);
      for (const k of [1, 10, 100])
        expect(mapped.search(queries, k)).toEqual(memory.search(queries, k));
      expect(mapped.search(queries, 10, { efSearch: 64 })).toEqual(
        memory.search(queries, 10, { efSearch: 64 }),
      );
      expect(indexStorage(mapped, 4096)).toEqual({ storage: 'mapped', memory_budget_bytes: 4096 });
      // The graph file is still checked whole at open.
      const path = join(dir, 'graph.usearch');
      const bytes = await readFile(path);
      bytes[bytes.length - 7] = bytes[bytes.length - 7]! ^ 0xff;
      await writeFile(path, bytes);
      await expect(openIndex(dir, { memoryBudget: 4096 })).rejects.toThrow(
        /checksum mismatch in graph\.usearch/,
      );
    },
  );

  it('a budget at least the rows keeps them in memory', async () => {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('SQ8', data, DIM, 'ip'), ids, dir);
    const { index } = await openIndex(dir, { memoryBudget: 3000 * DIM });
    expect(index.rows instanceof PagedRows).toBe(false);
  });

  it('a damaged page fails the search that reads it, naming the file; in memory it fails the open', async () => {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('IVF16,SQ8', data, DIM, 'ip', { seed: 3 }), ids, dir);
    const path = join(dir, 'list-vectors.sq8');
    const bytes = await readFile(path);
    bytes[20_000] = bytes[20_000]! ^ 0xff;
    await writeFile(path, bytes);
    const paged = (await openIndex(dir, { memoryBudget: 4096 })).index;
    // 4096 rows of 16 bytes a page: byte 20,000 is in the first page (0-65536).
    expect(() => paged.search(queries, 10, { nprobe: 16 })).toThrow(
      /list-vectors\.sq8: bytes 0-48000 do not match their page checksum/,
    );
    paged.rows!.close?.();
    await expect(openIndex(dir)).rejects.toThrow(/checksum mismatch in list-vectors\.sq8/);
    await truncate(path, 100);
    await expect(openIndex(dir, { memoryBudget: 4096 })).rejects.toThrow(
      /list-vectors\.sq8 has 100 bytes/,
    );
  });

  it('a damaged page checksum file is refused at open', async () => {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('SQfp16', data, DIM, 'ip'), ids, dir);
    const path = join(dir, 'vectors.f16.crc32');
    const bytes = await readFile(path);
    bytes[0] = bytes[0]! ^ 0xff;
    await writeFile(path, bytes);
    await expect(openIndex(dir, { memoryBudget: 4096 })).rejects.toThrow(
      /checksum mismatch in vectors\.f16\.crc32/,
    );
  });

  it('an index written before page checksums is paged after hashing its rows at open', async () => {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('SQ8', data, DIM, 'l2'), ids, dir);
    const expected = (await openIndex(dir)).index.search(queries, 10);
    await withoutPageChecksums(dir, 'vectors.sq8');
    const paged = (await openIndex(dir, { memoryBudget: 4096 })).index;
    expect(paged.search(queries, 10)).toEqual(expected);
    paged.rows!.close?.();
    const bytes = await readFile(join(dir, 'vectors.sq8'));
    bytes[5] = bytes[5]! ^ 0xff;
    await writeFile(join(dir, 'vectors.sq8'), bytes);
    await expect(openIndex(dir, { memoryBudget: 4096 })).rejects.toThrow(
      /checksum mismatch in vectors\.sq8/,
    );
  });

  // Bytes this process read (Linux's /proc/self/io: read calls, page cache hits included).
  const readBytes = () => Number(/^rchar: (\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
  it.skipIf(!existsSync('/proc/self/io'))(
    'a paged open reads the page checksums, not the rows: as little at 8 MB of vectors as at 1 MB',
    async () => {
      const wide = 256;
      const readAtOpen = async (count: number, memoryBudget?: number) => {
        const dir = await tempDir();
        const vectors = randomVectors(count, wide, count);
        const names = Array.from({ length: count }, (_, i) => `${i}`);
        await saveIndex(trainAndAdd('Flat', vectors, wide, 'ip'), names, dir);
        const before = readBytes();
        const { index } = await openIndex(dir, { memoryBudget });
        const read = readBytes() - before;
        index.rows?.close?.();
        return read;
      };
      const small = await readAtOpen(1000, 4096);
      const large = await readAtOpen(8000, 4096);
      // Ids (under 40 KB here), the manifest and the page checksums; the rows are 1 and 8 MB.
      expect(small).toBeLessThan(128 * 1024);
      expect(large).toBeLessThan(128 * 1024);
      // The measure sees the rows when they are read: loading in memory reads all 8 MB.
      expect(await readAtOpen(8000)).toBeGreaterThan(8000 * wide * 4);
    },
  );
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
