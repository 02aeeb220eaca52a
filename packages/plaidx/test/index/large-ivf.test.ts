import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexFiles } from '../../src/index/index-files.js';
import { pidLists } from '../../src/index/ivf.js';
import { writeTorchTuple, type SparseTensor } from '../torch-archive.js';

/** A ColBERT index directory holding only what `ivf()` needs (the layout is told by centroids.pt). */
async function colbertDir(root: string, name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  await writeFile(join(dir, 'centroids.pt'), '');
  return dir;
}

const int64 = (numel: number, at: number, values: bigint[]): SparseTensor => ({
  dtype: 'int64',
  numel,
  pieces: [{ at, values: BigInt64Array.from(values) }],
});

describe('a ColBERT IVF (ivf.pid.pt) read a slice at a time', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'plaid-large-ivf-'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads a file past 4 GiB (a file with holes: 4.3 GB on disk as a few KB; 2.2 GB of memory, the values as int32)', async () => {
    // 540,870,912 int64 entries: centroid 0 lists passage 0 throughout (the hole), centroids 2
    // and 3 list passages written at the very end of the data, past 4 GiB into the file.
    const numel = 2 ** 29 + 4_000_000;
    const tail = [7n, 11n, 13n, 999n, 1000n];
    const lengths = [numel - 5, 0, 2, 3];
    const dir = await colbertDir(root, 'big');
    const file = join(dir, 'ivf.pid.pt');
    const { dataOffsets } = await writeTorchTuple(file, [
      int64(numel, numel - tail.length, tail),
      int64(lengths.length, 0, lengths.map(BigInt)),
    ]);
    expect((await stat(file)).size).toBeGreaterThan(2 ** 32);
    expect(dataOffsets[0]! + (numel - tail.length) * 8).toBeGreaterThan(2 ** 32);
    expect(dataOffsets[1]).toBeGreaterThan(2 ** 32);

    const files = await indexFiles(dir);
    const ivf = await files.ivf();
    expect(ivf.kind).toBe('pid');
    expect(ivf.values.length).toBe(numel);
    expect(Array.from(ivf.lengths)).toEqual(lengths);
    expect(Array.from(ivf.values.subarray(numel - 6))).toEqual([0, 7, 11, 13, 999, 1000]);
    const docOffsets = Float64Array.from({ length: 1002 }, (_, p) => p);
    const lists = pidLists(ivf, lengths.length, docOffsets);
    expect(Array.from(lists.offsets)).toEqual([0, numel - 5, numel - 5, numel - 3, numel]);
    const list = (c: number) =>
      Array.from(lists.pids.subarray(lists.offsets[c], lists.offsets[c + 1]));
    expect(list(2)).toEqual([7, 11]);
    expect(list(3)).toEqual([13, 999, 1000]);
  }, 120_000);

  it('refuses an int64 value past int32, naming its position across slices', async () => {
    // 5 M entries: 40 MB of holes, read in three 16 MiB slices; the value is in the third.
    const numel = 5_000_000;
    const dir = await colbertDir(root, 'wide');
    const file = join(dir, 'ivf.pid.pt');
    await writeTorchTuple(file, [
      int64(numel, numel - 2, [2n ** 40n, 1n]),
      int64(1, 0, [BigInt(numel)]),
    ]);
    await expect((await indexFiles(dir)).ivf()).rejects.toThrow(
      `${file}: int64 value 1099511627776 at position ${numel - 2} does not fit in int32`,
    );
  });

  it('refuses a file that is not a tuple of two tensors, naming it', async () => {
    const dir = await colbertDir(root, 'one');
    const file = join(dir, 'ivf.pid.pt');
    await writeTorchTuple(file, [int64(3, 0, [1n, 2n, 3n])]);
    await expect((await indexFiles(dir)).ivf()).rejects.toThrow(
      `${file}: expected a tuple of 2 tensors`,
    );
  });

  it('refuses a truncated file and a member that ends past the file, naming the file', async () => {
    const dir = await colbertDir(root, 'damaged');
    const file = join(dir, 'ivf.pid.pt');
    const tensors = [int64(5, 0, [1n, 2n, 3n, 4n, 5n]), int64(2, 0, [2n, 3n])];
    await writeTorchTuple(file, tensors);
    const files = await indexFiles(dir);
    expect(Array.from((await files.ivf()).values)).toEqual([1, 2, 3, 4, 5]);

    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, bytes.length - 30));
    await expect(files.ivf()).rejects.toThrow(
      `${file}: not a PyTorch zip archive: no end-of-central-directory record (truncated, or not a zip file)`,
    );

    // The directory says data/0 holds 2^31 bytes: more than the file has.
    const entry = bytes.lastIndexOf(Buffer.from('ivf.pid/data/0')) - 46;
    bytes.writeUInt32LE(2 ** 31, entry + 20);
    bytes.writeUInt32LE(2 ** 31, entry + 24);
    await writeFile(file, bytes);
    await expect(files.ivf()).rejects.toThrow(
      `${file}: not a PyTorch zip archive: member ivf.pid/data/0 needs 2147483648 bytes but the file ends first (truncated)`,
    );
  });

  it('reads the same lists from ZIP64 records of a small file (as torch writes past 4 GiB)', async () => {
    const dir = await colbertDir(root, 'zip64');
    const file = join(dir, 'ivf.pid.pt');
    await writeTorchTuple(
      file,
      [
        int64(5, 0, [4n, 0n, 2n, 1n, 3n]),
        { dtype: 'int32', numel: 2, pieces: [{ at: 0, values: Int32Array.of(2, 3) }] },
      ],
      { zip64: true },
    );
    const ivf = await (await indexFiles(dir)).ivf();
    expect(Array.from(ivf.values)).toEqual([4, 0, 2, 1, 3]);
    expect(Array.from(ivf.lengths)).toEqual([2, 3]);
    const lists = pidLists(ivf, 2, Float64Array.of(0, 1, 2, 3, 4, 5));
    expect(Array.from(lists.pids)).toEqual([4, 0, 2, 1, 3]);
  });
});
