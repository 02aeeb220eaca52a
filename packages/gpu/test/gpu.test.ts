/**
 * The GGUF engines on a real GPU backend (CUDA, Vulkan). Where a backend does not load (no
 * binary or no driver), its equality tests are skipped with a message naming what is missing;
 * without CUDA, the refusal of `device: "cuda"` is checked instead.
 */
import { getLlama } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { ggufEmbedder, ggufRanker, GgufModelPool, type LlamaDevice } from '../src/index.js';
import { DOCS, TINY_EMBED, TINY_RERANK, silent } from './helpers.js';

const GPU_BACKENDS = ['cuda', 'vulkan'] as const;
/** A backend's first model load compiles its shaders or kernels (a minute on a software Vulkan). */
const GPU_TIMEOUT = 180_000;

async function backendProblem(backend: (typeof GPU_BACKENDS)[number]): Promise<string | undefined> {
  try {
    const llama = await getLlama({ build: 'never', gpu: backend });
    await llama.dispose();
    return undefined;
  } catch (error) {
    return (error as Error).message || (error as Error).name;
  }
}

const problems = new Map<string, string | undefined>();
for (const backend of GPU_BACKENDS) {
  const problem = await backendProblem(backend);
  problems.set(backend, problem);
  if (problem)
    console.warn(
      `skipping ${backend} equality tests: llama.cpp's ${backend} backend does not load here (${problem}); on a host with the GPU driver run npx irserve-gpu-install ${backend}`,
    );
}

async function embedOn(device: LlamaDevice): Promise<Float32Array[]> {
  const lease = await new GgufModelPool().acquire(
    { path: TINY_EMBED, role: 'embedding', device, gpuLayers: 'max', threads: 1 },
    silent,
  );
  const embedder = await ggufEmbedder(lease, {
    maxLength: 256,
    contextSize: undefined,
    contexts: 1,
    threads: 1,
    normalize: true,
  });
  try {
    return await embedder.embed(DOCS.map((d) => d.text));
  } finally {
    await embedder.close();
    await lease.release();
  }
}

async function rankOn(device: LlamaDevice): Promise<number[]> {
  const lease = await new GgufModelPool().acquire(
    { path: TINY_RERANK, role: 'ranking', device, gpuLayers: 'max', threads: 1 },
    silent,
  );
  const ranker = await ggufRanker(lease, {
    maxLength: 256,
    contextSize: undefined,
    contexts: 2,
    threads: 1,
    template: undefined,
  });
  try {
    return await ranker.score(DOCS.map((d) => ({ query: 'jet engine thrust', passage: d.text })));
  } finally {
    await ranker.close();
    await lease.release();
  }
}

describe.skipIf(problems.get('cuda') === undefined)('without a CUDA backend', () => {
  it('device "cuda" is refused with the install step, never run on the CPU', async () => {
    const attempt = new GgufModelPool().acquire(
      { path: TINY_EMBED, role: 'embedding', device: 'cuda', gpuLayers: 'auto' },
      silent,
    );
    await expect(attempt).rejects.toThrow(/device "cuda".*npx irserve-gpu-install cuda/);
  });
});

for (const backend of GPU_BACKENDS)
  describe.skipIf(problems.get(backend) !== undefined)(`on ${backend}`, () => {
    it(
      'embeddings equal the CPU ones within fp16 tolerance',
      async () => {
        const [gpu, cpu] = [await embedOn(backend), await embedOn('cpu')];
        expect(gpu).toHaveLength(cpu.length);
        gpu.forEach((vector, i) =>
          vector.forEach((x, j) => expect(Math.abs(x - cpu[i]![j]!)).toBeLessThan(1e-2)),
        );
      },
      GPU_TIMEOUT,
    );

    it(
      'ranking scores equal the CPU ones within fp16 tolerance',
      async () => {
        const [gpu, cpu] = [await rankOn(backend), await rankOn('cpu')];
        expect(gpu).toHaveLength(cpu.length);
        gpu.forEach((score, i) => expect(Math.abs(score - cpu[i]!)).toBeLessThan(1e-2));
      },
      GPU_TIMEOUT,
    );
  });
