/**
 * `irserve-build-index --use_gpu`: IVF k-means and PQ codebooks trained through the ONNX
 * Runtime assigner, vectors added on the CPU. Here the GPU path runs on a forced CPU provider
 * (the same graph and code a GPU runs) and must reach the CPU build's recall; the real flag,
 * with no GPU provider usable, must be refused naming what was tried.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../dense/src/build/build-index.js';
import { main } from '../../dense/src/build/cli.js';
import { writeDictShard } from '../../dense/src/formats/index.js';
import { openIndex } from '../../dense/src/vector-index/index.js';
import { exactTopK, randomVectors, recall } from '../../dense/test/vector-index/helpers.js';
import { GpuAssigner } from '../src/kmeans/gpu-assigner.js';
import { openGpuAssigner } from '../src/kmeans/index.js';

const DIM = 32;
const N = 3000;
let dir = '';
let input = '';
let vectors: Float32Array;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-use-gpu-'));
  input = join(dir, 'shards');
  await mkdir(input);
  vectors = randomVectors(N, DIM, 7);
  const ids = Array.from({ length: N }, (_, i) => `d${i}`);
  await writeDictShard(join(input, 'shard0.npy'), vectors, DIM, ids);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function recallOf(output: string, nprobe: number): Promise<number> {
  const queries = randomVectors(50, DIM, 99);
  const { index } = await openIndex(output);
  const result = index.search(queries, 10, { nprobe });
  return recall(result, exactTopK(vectors, queries, DIM, 10, 'ip'), 10);
}

/**
 * The same index built twice from the shards, on the CPU and with `--use_gpu` (on `providers`
 * when given): the GPU build's log and both builds' recall at nprobe 4.
 */
async function buildBoth(factory: string, name: string, providers?: string[]) {
  const common = { inputDir: input, indexString: factory, samplingRate: 1, kmeansIterations: 10 };
  const cpuDir = join(dir, `${name}-cpu`);
  const gpuDir = join(dir, `${name}-gpu`);
  const lines: string[] = [];
  await buildIndex({ ...common, outputDir: cpuDir, interactive: false });
  await buildIndex({
    ...common,
    outputDir: gpuDir,
    useGpu: true,
    ...(providers ? { gpuProviders: providers } : {}),
    interactive: false,
    logger: { info: (line) => lines.push(line) },
  });
  return { log: lines.join('\n'), cpu: await recallOf(cpuDir, 4), gpu: await recallOf(gpuDir, 4) };
}

async function gpuProblem(): Promise<string | undefined> {
  try {
    await (await openGpuAssigner()).close();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('--use_gpu training', () => {
  it.each(['IVF32,Flat', 'IVF16,PQ8'])(
    '%s trained through the assigner reaches the CPU build recall',
    async (factory) => {
      const { log, cpu, gpu } = await buildBoth(factory, factory, ['cpu']);
      expect(log).toMatch(/training .* on ONNX Runtime's cpu provider/);
      expect(gpu).toBeGreaterThan(0.3);
      expect(Math.abs(gpu - cpu)).toBeLessThan(0.05);
    },
    60_000,
  );

  it('on a GPU provider that initialises, the assigner gives the CPU provider labels', async () => {
    const problem = await gpuProblem();
    if (problem !== undefined) {
      console.warn(`no GPU provider initialises here, the GPU label test is skipped: ${problem}`);
      return;
    }
    const [gpu, cpu] = [await openGpuAssigner(), await GpuAssigner.create(['cpu'])];
    try {
      const centroids = randomVectors(64, DIM, 3);
      for (const metric of ['l2', 'ip'] as const) {
        const [a, b] = [
          await gpu.assign(centroids, vectors, DIM, metric),
          await cpu.assign(centroids, vectors, DIM, metric),
        ];
        // Float sums in another order may flip a near tie, nothing more.
        const same = a.filter((label, i) => label === b[i]).length;
        expect(same / N).toBeGreaterThan(0.995);
      }
    } finally {
      await gpu.close();
      await cpu.close();
    }
  });

  it('on a GPU provider that initialises, IVF16,PQ8 reaches the CPU build recall', async () => {
    const problem = await gpuProblem();
    if (problem !== undefined) {
      console.warn(
        `no GPU provider initialises here, the real-GPU training test is skipped: ${problem}`,
      );
      return;
    }
    const { log, cpu, gpu } = await buildBoth('IVF16,PQ8', 'real-gpu');
    expect(log).toMatch(/training .* on ONNX Runtime's (cuda|webgpu) provider/);
    expect(gpu).toBeGreaterThan(0.3);
    expect(Math.abs(gpu - cpu)).toBeLessThan(0.05);
  }, 60_000);

  it('refuses --use_gpu for an index with nothing to train', async () => {
    const err: string[] = [];
    const code = await main([input, join(dir, 'hnsw'), '--index_string', 'HNSW16', '--use_gpu'], {
      out: () => {},
      err: (line) => err.push(line),
    });
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/HNSW16 has nothing to train \(drop --use_gpu\)/);
  });

  it('refuses the real --use_gpu without a usable GPU, naming what was tried', async () => {
    const problem = await gpuProblem();
    if (problem === undefined) {
      console.warn('a GPU provider initialised: the refusal test does not apply here');
      return;
    }
    const err: string[] = [];
    const code = await main(
      [input, join(dir, 'refused'), '--index_string', 'IVF16,Flat', '--use_gpu'],
      { out: () => {}, err: (line) => err.push(line) },
    );
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(
      /--use_gpu: no GPU execution provider of ONNX Runtime could be used; tried cuda: .*ONNXRUNTIME_NODE_INSTALL=cuda12 node .*; webgpu: /,
    );
  });
});
