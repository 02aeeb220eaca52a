import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { listShards, readShard, writeDictShard } from '../../src/formats/index.js';
import { toFloat16Bits } from '../../src/formats/float16.js';
import { expected, f32, fixture, tempDir } from './helpers.js';

const WANT = expected<{ features: number[]; features16: number[]; dim: number; ids: string[] }>(
  'shards',
  'expected.json',
);
const intIds = WANT.ids.map((_, i) => String(i + 100));

describe('readShard on numpy-written shards', () => {
  test.each([
    ['dict-f32.npy', 'features', WANT.ids],
    ['dict-f16.npy', 'features16', WANT.ids],
    ['dict-p2.npy', 'features', WANT.ids],
    ['dict-p4.npy', 'features', WANT.ids],
    ['dict-p5.npy', 'features', WANT.ids],
    ['dict-np2-names.npy', 'features', WANT.ids],
    ['dict-fortran.npy', 'features', WANT.ids],
    ['dict-ids-unicode.npy', 'features', WANT.ids],
    ['dict-ids-int.npy', 'features', intIds],
    ['dict-ids-scalars.npy', 'features', intIds],
    ['shard-deflated.npz', 'features', WANT.ids],
    ['shard-stored.npz', 'features16', WANT.ids],
  ] as const)('%s', async (name, key, ids) => {
    const shard = await readShard(fixture('shards', name));
    expect(shard).toMatchObject({ dim: WANT.dim, count: ids.length, ids, droppedNaN: 0 });
    expect(Array.from(shard.features)).toEqual(f32(WANT[key]));
  });

  test('rows holding a NaN are dropped and counted', async () => {
    const shard = await readShard(fixture('shards', 'dict-nan.npy'));
    expect(shard.droppedNaN).toBe(2);
    expect(shard.count).toBe(38);
    expect(shard.ids).toEqual(WANT.ids.filter((_, i) => i !== 3 && i !== 7));
    const rows = WANT.features.length / WANT.dim;
    const kept = [...Array(rows).keys()].filter((i) => i !== 3 && i !== 7);
    const want = kept.flatMap((i) => f32(WANT.features.slice(i * WANT.dim, (i + 1) * WANT.dim)));
    expect(Array.from(shard.features)).toEqual(want);
  });
});

describe('bad shards fail with the file named', () => {
  test.each([
    [
      'dict-wrong-keys.npy',
      /dict-wrong-keys\.npy: shard needs keys "features" and "ids", found \["embeddings","ids"\]/,
    ],
    ['dict-count-mismatch.npy', /dict-count-mismatch\.npy: 40 feature rows but 39 ids/],
    ['dict-int-features.npy', /"features" must be a float16\/32\/64 array, got int64/],
    ['dict-1d-features.npy', /"features" must be 2-D/],
    [
      'shard-no-ids.npz',
      /shard-no-ids\.npz: shard needs keys "features" and "ids", found \["features"\]/,
    ],
  ])('%s', async (name, message) => {
    await expect(readShard(fixture('shards', name))).rejects.toThrow(message);
  });

  const dir = tempDir();
  const write = (name: string, bytes: Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };

  test('truncated dict shard', async () => {
    const bytes = readFileSync(fixture('shards', 'dict-f32.npy'));
    const path = write('truncated.npy', bytes.subarray(0, bytes.byteLength - 200));
    await expect(readShard(path)).rejects.toThrow(/truncated\.npy: truncated pickle/);
  });

  test('a plain numeric .npy without ids beside it is not a shard', async () => {
    await expect(readShard(fixture('npy', 'f32-c.npy'))).rejects.toThrow(
      /f32-c\.npy: a plain 2-D feature array needs its ids beside it.*f32-c\.ids/,
    );
  });

  test('a corrupt .npz', async () => {
    const bytes = Buffer.from(readFileSync(fixture('shards', 'shard-deflated.npz')));
    await expect(readShard(write('cut.npz', bytes.subarray(0, 300)))).rejects.toThrow(
      /cut\.npz: not a readable \.npz/,
    );
  });

  test('an unknown extension', async () => {
    await expect(readShard(write('x.pt', new Uint8Array(4)))).rejects.toThrow(
      /unsupported shard extension/,
    );
  });

  test('a missing file', async () => {
    await expect(readShard(join(dir, 'absent.npy'))).rejects.toThrow(/absent\.npy/);
  });
});

describe('writeDictShard', () => {
  const dir = tempDir();

  test('float32 round trip', async () => {
    const features = new Float32Array(f32(WANT.features));
    const path = join(dir, 'w32.npy');
    await writeDictShard(path, features, WANT.dim, WANT.ids, 'float32');
    const shard = await readShard(path);
    expect(shard).toMatchObject({
      dim: WANT.dim,
      count: WANT.ids.length,
      ids: WANT.ids,
      droppedNaN: 0,
    });
    expect(shard.features).toEqual(features);
  });

  test('float16 from bits, and from float32 (rounded like numpy)', async () => {
    const features = new Float32Array(f32(WANT.features));
    const bits = toFloat16Bits(features);
    await writeDictShard(join(dir, 'bits.npy'), bits, WANT.dim, WANT.ids, 'float16');
    await writeDictShard(join(dir, 'rounded.npy'), features, WANT.dim, WANT.ids, 'float16');
    for (const name of ['bits.npy', 'rounded.npy']) {
      const shard = await readShard(join(dir, name));
      expect(Array.from(shard.features)).toEqual(f32(WANT.features16));
    }
  });

  test('large arrays at an odd offset in the pickle are read in place and exactly', async () => {
    // Features start 391 bytes into the file (not a multiple of 4): arrays of 4 KiB or more are
    // moved back into alignment inside the reader's buffer instead of copied.
    const n = 300;
    const dim = 16;
    const features = Float32Array.from({ length: n * dim }, (_, i) => Math.sin(i));
    const ids = Array.from({ length: n }, (_, i) => `doc-${i}`);
    for (const dtype of ['float32', 'float16'] as const) {
      const path = join(dir, `large-${dtype}.npy`);
      await writeDictShard(path, features, dim, ids, dtype);
      const shard = await readShard(path);
      expect(shard.ids).toEqual(ids);
      expect(shard.features.byteOffset % 4).toBe(0);
      const tolerance = dtype === 'float32' ? 0 : 1e-3;
      let worst = 0;
      for (let i = 0; i < features.length; i++) {
        worst = Math.max(worst, Math.abs(shard.features[i]! - features[i]!));
      }
      expect(worst).toBeLessThanOrEqual(tolerance);
    }
  });

  test('long and non-ASCII ids, and an empty shard', async () => {
    const ids = ['é'.repeat(300), '文書', ''];
    await writeDictShard(join(dir, 'ids.npy'), new Float32Array(6), 2, ids);
    expect((await readShard(join(dir, 'ids.npy'))).ids).toEqual(ids);
    await writeDictShard(join(dir, 'empty.npy'), new Float32Array(0), 4, []);
    expect(await readShard(join(dir, 'empty.npy'))).toMatchObject({ count: 0, dim: 4, ids: [] });
  });

  test('inconsistent arguments are refused', async () => {
    await expect(
      writeDictShard(join(dir, 'x.npy'), new Float32Array(5), 2, ['a', 'b']),
    ).rejects.toThrow(/5 values are not 2 ids x dim 2/);
    await expect(
      writeDictShard(join(dir, 'x.npy'), new Uint16Array(4), 2, ['a', 'b'], 'float32'),
    ).rejects.toThrow(/float16 bits/);
  });
});

describe('listShards', () => {
  const dir = tempDir();

  test('lists .npy and .npz files in name order, nothing else', async () => {
    const shards = join(dir, 'shards');
    mkdirSync(join(shards, 'sub.npy'), { recursive: true });
    for (const name of ['b.npy', 'a10.npz', 'a2.npy', 'notes.txt', 'index.faiss']) {
      copyFileSync(fixture('shards', 'dict-f32.npy'), join(shards, name));
    }
    expect(await listShards(shards)).toEqual(
      ['a10.npz', 'a2.npy', 'b.npy'].map((n) => join(shards, n)),
    );
  });

  test('a directory without shards, or no directory, is an error naming it', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await expect(listShards(empty)).rejects.toThrow(
      `${empty}: no .npy or .npz shards in this directory`,
    );
    await expect(listShards(join(dir, 'absent'))).rejects.toThrow(/absent: cannot list shards/);
  });
});
