import { readdir, readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaidIndex, type BuildPlaidOptions } from '../../src/build/build-plaid.js';
import { IvfRuns } from '../../src/build/ivf-runs.js';
import { memoryShards, type ShardSource } from '../../src/build/token-shards.js';
import { openPlaidIndex } from '../../src/index/plaid-index.js';
import { syntheticCorpus, type Corpus } from '../synthetic.js';

async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(dir)).sort();
  return new Map(
    await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n))] as const)),
  );
}

describe('irserve-build-plaid-index in bounded memory', () => {
  let dir: string;
  let corpus: Corpus;
  const settings = (outputDir: string): BuildPlaidOptions => ({
    source: memoryShards(corpus.shards),
    outputDir,
    nbits: 2,
    partitions: 64,
    samplePassages: 50,
    threads: 1,
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plaid-bounded-'));
    // 1,200 passages of 4-11 tokens in 12 shards: about 9,000 (centroid, passage) pairs.
    corpus = syntheticCorpus({ passages: 1200, dim: 16, shards: 12, queries: 0 });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes the same bytes in every file as an in-memory build, after several spills', async () => {
    const whole = await buildPlaidIndex({
      ...settings(join(dir, 'memory')),
      memoryBudget: Infinity,
    });
    expect(whole.spills).toBe(0);
    const lines: string[] = [];
    const bounded = await buildPlaidIndex({
      ...settings(join(dir, 'bounded')),
      memoryBudget: 128 * 1024,
      logger: { info: (line) => lines.push(line) },
    });
    expect(bounded.spills).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => /IVF run \d+ written to disk/.test(l))).toHaveLength(bounded.spills);
    const a = await filesOf(join(dir, 'memory'));
    const b = await filesOf(join(dir, 'bounded'));
    expect([...b.keys()]).toEqual([...a.keys()]);
    expect([...a.keys()]).toContain('ivf.npy');
    for (const [name, bytes] of a) expect(b.get(name)!.equals(bytes), name).toBe(true);
    const index = await openPlaidIndex(join(dir, 'bounded'));
    expect(index.numPassages).toBe(1200);
  });

  it('lowers the training sample to fit the budget, and says so', async () => {
    const lines: string[] = [];
    await buildPlaidIndex({
      ...settings(join(dir, 'small-sample')),
      samplePassages: 1200,
      memoryBudget: 128 * 1024,
      logger: { info: (line) => lines.push(line) },
    });
    expect(lines.join('\n')).toMatch(/training on \d+ sampled passages instead of 1200/);
  });

  it('refuses a shard larger than half the budget before any work, naming it', async () => {
    const big = syntheticCorpus({ passages: 600, dim: 16, shards: 1, queries: 0 });
    await expect(
      buildPlaidIndex({
        ...settings(join(dir, 'refused')),
        source: memoryShards(big.shards),
        memoryBudget: 128 * 1024,
      }),
    ).rejects.toThrow(/shard 0: .* of token embeddings, more than the 64\.0 KiB a shard may hold/);
  });

  it('leaves nothing that looks like an index when a build fails', async () => {
    const inner = memoryShards(corpus.shards);
    let loads = 0;
    const failing: ShardSource = {
      ...inner,
      // Counting and sampling read every shard; the encoding pass fails at its fifth.
      load: (i) =>
        ++loads === 2 * inner.count + 5 ? Promise.reject(new Error('disk gone')) : inner.load(i),
    };
    await expect(
      buildPlaidIndex({
        ...settings(join(dir, 'failed')),
        source: failing,
        memoryBudget: 128 * 1024,
      }),
    ).rejects.toThrow(/disk gone/);
    expect((await readdir(dir)).filter((n) => /failed/.test(n))).toEqual([]);
  });

  it('detects a damaged spilled run', async () => {
    const spillDir = await mkdtemp(join(dir, 'spill-'));
    const runs = new IvfRuns({
      partitions: 4,
      runPairs: 1024,
      spillDir,
      readBytes: 1 << 16,
      onSpill: () => undefined,
    });
    for (let pid = 0; pid < 3000; pid++) await runs.addPassage(pid, Int32Array.of(pid % 4));
    const run = join(spillDir, 'ivf-run-0.arr');
    const bytes = await readFile(run);
    bytes[100]! ^= 0xff;
    await writeFile(run, bytes);
    await expect(runs.writeIvf(join(spillDir, 'ivf.npy'), join(spillDir, 'l.npy'))).rejects.toThrow(
      /ivf-run-0\.arr: bytes 0-\d+ do not match their checksum/,
    );
  });
});
