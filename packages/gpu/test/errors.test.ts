/**
 * Bad input to the GGUF engines: files that are not the right kind of model (or no GGUF at all),
 * config fields out of range, a GPU backend that is not installed, a GPU index past the host's
 * GPUs, a model too large for the GPU, and `device: "auto"` falling back to the CPU with a log.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getLlama, type Llama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from 'irserve/testing';
import {
  GgufEmbedding,
  GgufModelPool,
  GgufReranker,
  assignGpu,
  checkFitsGpu,
  checkGpuIndex,
  openRuntime,
  parseGgufEmbeddingConfig,
  parseGgufRerankerConfig,
} from '../src/index.js';
import {
  TINY_EMBED,
  TINY_NO_POOLING,
  TINY_RERANK,
  gpuWorld,
  silent,
  startApp,
  type GpuWorld,
} from './helpers.js';

async function startError(world: GpuWorld, engine: string, config: Record<string, unknown>) {
  const app = startApp(
    { services: [{ name: 'svc', engine, config: { llama_threads: 1, device: 'cpu', ...config } }] },
    world.dir,
    [GgufEmbedding, GgufReranker],
  );
  return app.then(
    async (started) => {
      await started.close();
      return undefined;
    },
    (error: Error) => error,
  );
}

describe('GGUF engines refuse bad models and settings', () => {
  let world: GpuWorld;
  beforeAll(async () => {
    world = await gpuWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('refuses a file that is not GGUF, and a missing one', async () => {
    const junk = join(world.dir, 'junk.gguf');
    await writeFile(junk, 'not a model at all');
    const index = { index_path: world.indexDir };
    expect(
      (await startError(world, 'GgufEmbedding', { ...index, model_path: junk }))?.message,
    ).toMatch(/not a readable GGUF file/);
    expect(
      (await startError(world, 'GgufReranker', { model_path: join(world.dir, 'none.gguf') }))
        ?.message,
    ).toMatch(/config\.model_path: no file or folder at \S*none\.gguf$/);
  });

  it('refuses a token model as an embedding model, and either as a reranker', async () => {
    const index = { index_path: world.indexDir };
    expect(
      (await startError(world, 'GgufEmbedding', { ...index, model_path: TINY_NO_POOLING }))
        ?.message,
    ).toMatch(/not an embedding model.*bert\.pooling_type/);
    expect(
      (await startError(world, 'GgufEmbedding', { ...index, model_path: TINY_RERANK }))?.message,
    ).toMatch(/is a ranking model; serve it with the GgufReranker engine/);
    expect((await startError(world, 'GgufReranker', { model_path: TINY_EMBED }))?.message).toMatch(
      /not a ranking model/,
    );
  });

  it('validates the config fields, naming each', () => {
    expect(() => parseGgufRerankerConfig({})).toThrow(/model_path/);
    expect(() => parseGgufRerankerConfig({ model_path: 'a', model_name_or_path: 'b' })).toThrow(
      /once/,
    );
    expect(() => parseGgufRerankerConfig({ model_path: 'a', device: 'tpu' })).toThrow(/device/);
    expect(() => parseGgufRerankerConfig({ model_path: 'a', gpu_layers: -1 })).toThrow(
      /gpu_layers/,
    );
    expect(() => parseGgufRerankerConfig({ model_path: 'a', gpu_assignment: 64 })).toThrow(
      /gpu_assignment/,
    );
    expect(() => parseGgufRerankerConfig({ model_path: 'a', batch_size: 0 })).toThrow(/batch_size/);
    expect(() => parseGgufRerankerConfig({ model_path: 'a', template: 'no slots' })).toThrow(
      /template/,
    );
    expect(() => parseGgufEmbeddingConfig({ model_path: 'a' })).toThrow(/index_path/);
    expect(() =>
      parseGgufEmbeddingConfig({ model_path: 'a', index_path: 'i', embedding_base_url: 'x' }),
    ).toThrow(/embedding_base_url/);
    expect(parseGgufRerankerConfig({ model_name_or_path: 'm.gguf' })).toMatchObject({
      device: 'auto',
      gpu_layers: 'auto',
      max_length: 8192,
      batch_size: 1,
    });
  });

  it('refuses a GPU index past the GPUs present, and a conflicting visibility variable', () => {
    expect(() => checkGpuIndex(2, 2)).toThrow(
      /gpu_assignment 2 is out of range: this host has 2 GPUs \(0\.\.1\)/,
    );
    expect(() => checkGpuIndex(0, 0)).toThrow(/this host has 0 GPUs/);
    expect(() => checkGpuIndex(1, 2)).not.toThrow();
    const env: NodeJS.ProcessEnv = {};
    assignGpu('cuda', 1, env);
    expect(env.CUDA_VISIBLE_DEVICES).toBe('1');
    expect(() => assignGpu('cuda', 0, env)).toThrow(/conflicts with CUDA_VISIBLE_DEVICES=1/);
  });

  it('refuses a model too large for the GPU with both sizes', () => {
    expect(() =>
      checkFitsGpu({
        model: 'big.gguf',
        needed: 16 * 2 ** 30,
        free: 7.5 * 2 ** 30,
        total: 8 * 2 ** 30,
        layers: 'max',
      }),
    ).toThrow(
      /big\.gguf needs 16\.00 GiB of GPU memory with gpu_layers max, but the GPU has 7\.50 GiB free of 8\.00 GiB/,
    );
    expect(() =>
      checkFitsGpu({ model: 'm', needed: 1, free: 2, total: 2, layers: '10' }),
    ).not.toThrow();
  });
});

describe('device selection', () => {
  let cpu: Llama;
  beforeAll(async () => {
    cpu = await getLlama({ build: 'never', gpu: false, maxThreads: 1 });
  });

  it('auto falls back to the CPU and logs why each GPU backend was passed over', async () => {
    const { logger, logs } = captureLogs('info');
    const runtime = await openRuntime({
      device: 'auto',
      logger,
      load: async (backend) => {
        if (backend === 'cpu') return cpu;
        throw Object.assign(new Error('x'), { name: 'NoBinaryFoundError' });
      },
    });
    expect(runtime.backend).toBe('cpu');
    expect(runtime.skipped).toEqual([
      'cuda: no usable prebuilt binary is installed',
      'vulkan: no usable prebuilt binary is installed',
    ]);
    expect(
      logs.find(/device auto: no GPU backend loaded, running llama.cpp on the CPU/),
    ).toBeDefined();
  });

  it('an explicit GPU device that cannot load names the install step', async () => {
    const attempt = openRuntime({
      device: 'vulkan',
      logger: silent,
      load: () => Promise.reject(Object.assign(new Error('x'), { name: 'NoBinaryFoundError' })),
    });
    await expect(attempt).rejects.toThrow(
      /device "vulkan".*cannot be loaded \(no usable prebuilt binary is installed\).*npx irserve-gpu-install vulkan/,
    );
  });

  it('shares one loaded model between requests for the same file and settings', async () => {
    const pool = new GgufModelPool(async () => cpu);
    const request = {
      path: TINY_EMBED,
      role: 'embedding' as const,
      device: 'cpu' as const,
      gpuLayers: 'auto' as const,
    };
    const [a, b] = await Promise.all([
      pool.acquire(request, silent),
      pool.acquire(request, silent),
    ]);
    expect(a.model).toBe(b.model);
    expect(pool.size).toBe(1);
    await a.release();
    expect(pool.size).toBe(1);
    await b.release();
    expect(pool.size).toBe(0);
  });
});
