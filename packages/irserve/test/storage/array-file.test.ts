import { mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArrayFile, ArrayFileError, ArrayFileWriter, PageCache } from '../../src/storage/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-array-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Deterministic values (a simple LCG), so a wrong byte anywhere shows. */
function values(n: number, seed: number): Int32Array {
  const out = new Int32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) out[i] = x = (Math.imul(x, 1103515245) + 12345) | 0;
  return out;
}

const PAGE = 4096;

/** Typed arrays equal byte for byte (vitest's deep equality is slow on long arrays). */
function same(actual: ArrayBufferView, expected: ArrayBufferView): boolean {
  const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return actual.constructor === expected.constructor && bytes(actual).equals(bytes(expected));
}

/** A file of several sections of odd lengths, written in pieces of every size. */
async function sample(name: string) {
  const ints = values(50_000, 1); // 200,000 bytes: many pages, more than the staging buffer
  const floats = Float32Array.from(values(3_001, 2), (v) => v / 7);
  const bytes = Uint8Array.from(values(13, 3), (v) => v & 0xff);
  const path = join(dir, name);
  const writer = await ArrayFileWriter.create(path, {
    kind: 'test',
    pageSize: PAGE,
    stagingBytes: 3 * PAGE,
  });
  await writer.writeSection('bytes', bytes);
  await writer.beginSection('ints', 'i32');
  for (const [from, to] of [
    [0, 7],
    [7, 10_007],
    [10_007, 10_008],
    [10_008, 50_000],
  ] as const)
    await writer.append(ints.subarray(from, to));
  await writer.writeSection('floats', floats);
  await writer.beginSection('empty', 'f64');
  const summary = await writer.finish({ note: 'hello' });
  return { path, ints, floats, bytes, summary };
}

describe('array files', () => {
  it('read back whole, in chunks, by range and paged, byte for byte', async () => {
    const { path, ints, floats, bytes, summary } = await sample('round-trip.arr');
    expect(summary.sections.map((s) => [s.name, s.type, s.length, s.offset % 8])).toEqual([
      ['bytes', 'u8', 13, 0],
      ['ints', 'i32', 50_000, 0],
      ['floats', 'f32', 3_001, 0],
      ['empty', 'f64', 0, 0],
    ]);
    const file = await ArrayFile.open(path, { kind: 'test' });
    expect(file.meta).toEqual({ note: 'hello' });
    expect(file.bytes).toBe(summary.bytes);
    expect(await file.read('bytes', 'u8')).toEqual(bytes);
    expect(same(await file.read('ints', 'i32', { sliceBytes: PAGE }), ints)).toBe(true);
    expect(same(await file.read('floats', 'f32'), floats)).toBe(true);
    expect(await file.read('empty', 'f64')).toEqual(new Float64Array(0));
    const chunks = await file.readChunks('ints', 'i32', { maxChunkBytes: 4 * 1000, multipleOf: 3 });
    expect(chunks[0]!.length).toBe(999);
    expect(same(Int32Array.from(chunks.flatMap((c) => [...c])), ints)).toBe(true);
    expect(
      same(await file.readRange('ints', 'i32', 1234, 40_000), ints.subarray(1234, 40_000)),
    ).toBe(true);
    const cache = new PageCache({ budgetBytes: 16 * PAGE, pageSize: PAGE });
    const paged = file.paged('ints', 'i32', cache);
    // Reads past the cache's size replace pages as they go, and still return the right data.
    expect(same(paged.read(0, 50_000), ints)).toBe(true);
    expect(paged.read(20_000, 20_003)).toEqual(ints.subarray(20_000, 20_003));
    expect(paged.at(49_999)).toBe(ints[49_999]);
    const into = new Int32Array(10);
    expect(paged.read(5, 9, into).subarray(0, 4)).toEqual(ints.subarray(5, 9));
    const stats = cache.stats();
    expect(stats.residentBytes).toBeLessThanOrEqual(stats.capacityBytes);
    expect(stats.hits).toBeGreaterThan(0);
    await file.close();
    expect(() => paged.read(0, 1)).toThrow(/closed/);
  });

  it('refuse a file that is not one, is truncated, or holds something else', async () => {
    const { path } = await sample('kinds.arr');
    await expect(ArrayFile.open(path, { kind: 'bm25-index' })).rejects.toThrow(
      /holds test, not bm25-index/,
    );
    const foreign = join(dir, 'foreign.arr');
    await writeFile(foreign, 'just some text that is long enough');
    await expect(ArrayFile.open(foreign)).rejects.toThrow(/not an irserve array file/);
    const handle = await open(path, 'r+');
    const { size } = await handle.stat();
    await handle.truncate(size - 3);
    await handle.close();
    await expect(ArrayFile.open(path)).rejects.toThrow(ArrayFileError);
  });

  it('detect a damaged byte on every way of reading, naming the file and the bytes', async () => {
    const { path, ints } = await sample('damaged.arr');
    const file = await ArrayFile.open(path);
    const section = file.section('ints', 'i32');
    const at = section.offset + 30_000 * 4 + 1; // inside element 30,000
    const handle = await open(path, 'r+');
    await handle.write(Buffer.from([0x5a]), 0, 1, at);
    await handle.close();
    const damaged = new RegExp(`${path}: bytes \\d+-\\d+ do not match their checksum`);
    await expect(file.read('ints', 'i32')).rejects.toThrow(damaged);
    await expect(file.verify()).rejects.toThrow(damaged);
    const paged = file.paged(
      'ints',
      'i32',
      new PageCache({ budgetBytes: 1 << 20, pageSize: PAGE }),
    );
    expect(same(paged.read(0, 1000), ints.subarray(0, 1000))).toBe(true); // sound pages still serve
    expect(() => paged.read(29_990, 30_010)).toThrow(damaged);
    expect(() => paged.at(30_000)).toThrow(damaged); // never cached, so detected again
    await file.close();
  });

  it('leave no file behind when a build is aborted, and never half a file under the name', async () => {
    const path = join(dir, 'aborted.arr');
    const writer = await ArrayFileWriter.create(path, { kind: 'test', pageSize: PAGE });
    await writer.writeSection('ints', values(100_000, 4));
    expect((await readdir(dir)).some((name) => name.startsWith('aborted.arr.'))).toBe(true);
    await writer.abort();
    await writer.abort(); // harmless twice
    expect((await readdir(dir)).filter((name) => name.startsWith('aborted'))).toEqual([]);
    await expect(writer.append(new Int32Array(1))).rejects.toThrow(/finished or aborted/);
  });

  it('refuse mistakes in writing', async () => {
    const writer = await ArrayFileWriter.create(join(dir, 'mistakes.arr'), { kind: 'test' });
    await expect(writer.append(new Int32Array(1))).rejects.toThrow(/before beginSection/);
    await writer.beginSection('a', 'u16');
    await expect(writer.append(new Int32Array(1))).rejects.toThrow(/holds u16/);
    await expect(writer.beginSection('a', 'u8')).rejects.toThrow(/twice/);
    await writer.abort();
    await expect(
      ArrayFileWriter.create(join(dir, 'x.arr'), { kind: 'test', pageSize: 1000 }),
    ).rejects.toThrow(/power of two/);
  });
});
