import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/build/cli.js';
import { writeDictShard } from '../../src/formats/index.js';
import { openIndex } from '../../src/vector-index/index.js';
import { randomVectors } from '../vector-index/helpers.js';

const DIM = 8;
let dir = '';
let input = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-build-'));
  input = join(dir, 'shards');
  await mkdir(input);
  const ids = (from: number) => Array.from({ length: 300 }, (_, i) => `d${from + i}`);
  await writeDictShard(join(input, 'shard0.npy'), randomVectors(300, DIM, 1), DIM, ids(0));
  await writeDictShard(join(input, 'shard300.npy'), randomVectors(300, DIM, 2), DIM, ids(300));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('irserve-build-index', () => {
  it.each(['Flat', 'HNSW16', 'IVF8,Flat', 'IVF4,PQ2'])('builds %s end to end', async (factory) => {
    const output = join(dir, factory.replace(',', '_'));
    const r = await run(input, output, '--index_string', factory, '--sampling_rate', '1');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      new RegExp(
        `built ${factory.replace(/[,]/g, '.')} \\(ip\\) over 600 vectors of dim 8 in .*peak RSS`,
      ),
    );
    expect(r.err).toMatch(/read: 2\/2 shards/);
    const { index, ids, manifest } = await openIndex(output);
    expect(ids.slice(0, 2)).toEqual(['d0', 'd1']);
    expect(ids[300]).toBe('d300');
    expect(manifest.build).toMatchObject({ samplingRate: 1, seed: 0 });
    expect(index.count).toBe(600);
  });

  it.each([
    [[], /expected <input_dir> and <output_dir>, got 0/, 2],
    [['a'], /got 1 argument$/m, 2],
    [['a', 'b', '--bogus'], /unknown option --bogus/, 2],
    [['a', 'b', '--sampling_rate', 'abc'], /--sampling_rate must be a number/, 2],
    [['a', 'b', '--sampling_rate', 'NaN'], /--sampling_rate must be a number/, 2],
    [['a', 'b', '--sampling_rate', '0'], /sampling rate must be a number in \(0, 1\], got 0/, 1],
    [['a', 'b', '--sampling_rate', '1.5'], /sampling rate must be a number in \(0, 1\]/, 1],
    [
      ['a', 'b', '--use_gpu'],
      /--use_gpu trains IVF centroids and PQ codebooks; Flat has nothing to train/,
      1,
    ],
    [['a', 'b', '--index_string', 'PQ2048x4fs'], /supported forms/, 1],
    [['a', 'b', '--metric', 'cos'], /--metric must be ip or l2/, 2],
    [['a', 'b', '--threads', '1.5'], /--threads must be a non-negative integer/, 2],
  ])('%j fails with a one-line reason', async (args, message, code) => {
    const r = await run(...args);
    expect(r.code).toBe(code);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('an empty or missing input directory is a clear error', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const r = await run(empty, join(dir, 'out-empty'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no \.npy or \.npz shards/);
    const missing = await run(join(dir, 'nope'), join(dir, 'out-missing'));
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/irserve-build-index: /);
  });

  it('too small a training sample for IVF names the fix', async () => {
    const r = await run(input, join(dir, 'ivf-small'), '--index_string', 'IVF512,Flat');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/needs at least 512 training vectors.*raise --sampling_rate/);
  });

  it('--help prints the usage', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/usage: irserve-build-index/);
  });
});
