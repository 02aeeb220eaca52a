import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readShard, writeNpy } from '../../src/formats/index.js';
import { buildIndex } from '../../src/build/build-index.js';
import { openIndex } from '../../src/vector-index/index.js';
import { tempDir } from './helpers.js';

describe('plain 2-D .npy feature arrays with an ids file', () => {
  const dir = tempDir();

  test('read as a shard, the ids taken from <name>.ids in row order', async () => {
    const path = join(dir, 'part-0.npy');
    await writeNpy(path, Float32Array.of(1, 0, 0, 1, NaN, 0), [3, 2]);
    writeFileSync(join(dir, 'part-0.ids'), 'a\r\nb\nc\n');
    const shard = await readShard(path);
    expect(shard.ids).toEqual(['a', 'b']);
    expect(shard.dim).toBe(2);
    expect(shard.droppedNaN).toBe(1);
  });

  test('a .txt ids file works too; a count mismatch names both files', async () => {
    const path = join(dir, 'part-1.npy');
    await writeNpy(path, new Float32Array(4), [2, 2]);
    writeFileSync(join(dir, 'part-1.txt'), 'x\n');
    await expect(readShard(path)).rejects.toThrow(
      /part-1\.npy: 2 feature rows but 1 ids in .*part-1\.txt/,
    );
  });

  test('a 1-D or integer array is still refused', async () => {
    const path = join(dir, 'flat.npy');
    await writeNpy(path, new Float32Array(4), [4]);
    await expect(readShard(path)).rejects.toThrow(
      /expected a pickled dict shard .* or a 2-D float array/,
    );
  });

  test('irserve-build-index builds from a folder of plain arrays', async () => {
    const input = join(dir, 'plain-input');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(input);
    await writeNpy(join(input, 'a.npy'), Float32Array.of(1, 0, 0, 1), [2, 2]);
    writeFileSync(join(input, 'a.ids'), 'd1\nd2\n');
    await writeNpy(join(input, 'b.npy'), Float32Array.of(0.6, 0.8), [1, 2]);
    writeFileSync(join(input, 'b.ids'), 'd3\n');
    const output = join(dir, 'plain-index');
    const report = await buildIndex({
      inputDir: input,
      outputDir: output,
      indexString: 'Flat',
      interactive: false,
    });
    expect(report.count).toBe(3);
    const { index, ids } = await openIndex(output, { threads: 1 });
    expect(ids).toEqual(['d1', 'd2', 'd3']);
    expect(index.dim).toBe(2);
  });
});
