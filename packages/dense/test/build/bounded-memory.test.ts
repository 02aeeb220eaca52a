import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { VectorShards } from '../../src/build/shard-passes.js';
import { buildIndex, type BuildIndexOptions } from '../../src/build/build-index.js';
import { saveIndex, trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { randomVectors } from '../vector-index/helpers.js';

const DIM = 16;
/** Four shards of uneven sizes: 2,300 vectors with numeric ids (the ordering trap). */
const SIZES = [700, 500, 800, 300];
const vectors = randomVectors(2300, DIM, 41, false);
const ids = Array.from({ length: 2300 }, (_, i) => String(2300 - i));
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-bounded-'));
  dirs.push(dir);
  return dir;
}

function shards(): VectorShards {
  const starts = SIZES.map((_, i) => SIZES.slice(0, i).reduce((a, b) => a + b, 0));
  return {
    count: SIZES.length,
    label: (i) => `shard ${i}`,
    load: (i) => {
      const from = starts[i]!;
      const count = SIZES[i]!;
      return Promise.resolve({
        features: vectors.slice(from * DIM, (from + count) * DIM),
        dim: DIM,
        count,
        ids: ids.slice(from, from + count),
        droppedNaN: 0,
      });
    },
  };
}

/** Every file of `dir` but the manifest, and the manifest without the build's own record. */
async function contents(dir: string) {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const bytes = await readFile(join(dir, name));
    if (name !== 'manifest.json') out[name] = bytes.toString('base64');
    else {
      const { build, createdAt, ...rest } = JSON.parse(bytes.toString('utf8')) as Record<
        string,
        unknown
      >;
      void build;
      void createdAt;
      out[name] = JSON.stringify(rest);
      // Same fields in the same order, so the manifests' text differs only in the build record.
    }
  }
  return out;
}

const TRAIN = { samplingRate: 0.25, seed: 7, kmeansIterations: 4 };

async function streamed(factory: string, metric: Metric, options: Partial<BuildIndexOptions>) {
  const outputDir = join(await tempDir(), 'index');
  const report = await buildIndex({
    ...{ inputDir: 'memory', shards: shards(), outputDir, indexString: factory, metric },
    ...TRAIN,
    ...options,
  });
  return { outputDir, report };
}

describe('bounded-memory builds are byte-identical to in-memory builds', () => {
  // Budgets just above what the largest shard and the chunks in flight take, so the IVF
  // builds spill several runs (HNSW holds its graph in memory whatever the budget).
  it.each<[string, Metric, number]>([
    ['Flat', 'ip', 80_000],
    ['SQfp16', 'l2', 80_000],
    ['SQ8', 'ip', 80_000],
    ['IVF16,Flat', 'l2', 125_000],
    ['IVF16,SQfp16', 'ip', 95_000],
    ['IVF16,SQ8', 'l2', 82_000],
    ['IVF16,PQ4', 'ip', 73_000],
    ['IVF64_HNSW4,PQ4', 'l2', 90_000],
    ['IVF64,PQ4', 'l2', 90_000],
    ['IVF64_HNSW8,SQ8', 'ip', 106_000],
    ['HNSW8,SQ8', 'l2', 2_000_000],
  ])(
    '%s (%s), with a budget that forces several spills',
    { timeout: 120_000 },
    async (factory, metric, memoryBudget) => {
      const memory = join(await tempDir(), 'index');
      const inMemory = trainAndAdd(factory, vectors, DIM, metric, { ...TRAIN, threads: 1 });
      await saveIndex(inMemory, ids, memory);
      const tiny = await streamed(factory, metric, { memoryBudget, threads: 1 });
      expect(await contents(tiny.outputDir)).toEqual(await contents(memory));
      expect(tiny.report).toMatchObject({ count: 2300, dim: DIM, threads: 1 });
      if (factory.startsWith('IVF')) expect(tiny.report.runs).toBeGreaterThanOrEqual(3);
    },
  );

  it.each<[string, Metric]>([
    ['SQ8', 'l2'],
    ['IVF16,SQ8', 'ip'],
    ['IVF64_HNSW8,PQ4', 'l2'],
  ])(
    '%s (%s) on worker threads, with the default budget',
    { timeout: 120_000 },
    async (factory, metric) => {
      const memory = join(await tempDir(), 'index');
      await saveIndex(
        trainAndAdd(factory, vectors, DIM, metric, { ...TRAIN, threads: 1 }),
        ids,
        memory,
      );
      const threaded = await streamed(factory, metric, { threads: 2 });
      expect(await contents(threaded.outputDir)).toEqual(await contents(memory));
    },
  );
});

describe('a failed build leaves no index behind', () => {
  /** The test shards, with a hook run whenever shard `i` is loaded. */
  function hooked(hook: (i: number, loads: number) => Promise<void>): VectorShards {
    const base = shards();
    const loads = new Map<number, number>();
    return {
      ...base,
      load: async (i) => {
        loads.set(i, (loads.get(i) ?? 0) + 1);
        await hook(i, loads.get(i)!);
        return base.load(i);
      },
    };
  }

  async function expectNothingLeft(outputDir: string) {
    const left = await readdir(outputDir).catch(() => [] as string[]);
    expect(left).toEqual([]);
  }

  it('a spilled run damaged before the merge stops the build, naming the file', async () => {
    const outputDir = join(await tempDir(), 'index');
    const scratch = join(outputDir, '.irserve-build');
    let damaged = false;
    const shards = hooked(async (i) => {
      // By the last shard of the add pass, earlier runs are on disk: flip a byte in one.
      const runs = await readdir(scratch).catch(() => [] as string[]);
      if (i !== SIZES.length - 1 || damaged || !runs.includes('run-1')) return;
      const path = join(scratch, 'run-0');
      const bytes = await readFile(path);
      bytes[bytes.length - 100]! ^= 0x40;
      await writeFile(path, bytes);
      damaged = true;
    });
    const build = buildIndex({
      ...{ inputDir: 'memory', shards, outputDir, indexString: 'IVF16,SQ8', metric: 'ip' },
      ...{ ...TRAIN, memoryBudget: 82_000, threads: 1 },
    });
    await expect(build).rejects.toThrow(
      /spill file .*run-0 is damaged \(its checksum does not match\)/,
    );
    expect(damaged).toBe(true);
    await expectNothingLeft(outputDir);
  });

  it('an input that fails half-way removes what was written', async () => {
    const outputDir = join(await tempDir(), 'index');
    const shards = hooked(async (i, loads) => {
      if (i === 2 && loads === 3) throw new Error('disk went away');
    });
    const build = buildIndex({
      ...{ inputDir: 'memory', shards, outputDir, indexString: 'IVF16,PQ4', metric: 'l2' },
      ...{ ...TRAIN, memoryBudget: 73_000, threads: 1 },
    });
    await expect(build).rejects.toThrow('disk went away');
    await expectNothingLeft(outputDir);
  });

  it('a budget too small for the sample or the chunks in flight is a clear error', async () => {
    const sample = streamed('IVF16,SQ8', 'ip', { memoryBudget: 20_000, threads: 1 });
    await expect(sample).rejects.toThrow(
      /training IVF16,SQ8 on 575 sampled vectors takes about .* lower --sampling_rate or nlist/,
    );
    const chunks = streamed('IVF16,SQ8', 'ip', { memoryBudget: 45_000, threads: 1 });
    await expect(chunks).rejects.toThrow(/--memory_budget 43.9 KiB is too small for IVF16,SQ8/);
  });

  it('HNSW larger than the budget says what to use instead', async () => {
    const build = streamed('HNSW16', 'ip', { memoryBudget: 100_000, threads: 1 });
    await expect(build).rejects.toThrow(/holds about .* in memory .*IVF<nlist>,SQ8/);
  });
});
