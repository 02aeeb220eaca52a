/**
 * The GGUF engines on a real GPU backend. Where no CUDA backend loads (no binary or no driver),
 * the equality tests are skipped with a message naming what is missing, and the refusal of
 * `device: "cuda"` is checked instead.
 */
import { getLlama } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { ggufEmbedder, ggufRanker, GgufModelPool, type LlamaDevice } from '../src/index.js';
import { DOCS, TINY_EMBED, TINY_RERANK, silent } from './helpers.js';

async function cudaProblem(): Promise<string | undefined> {
  try {
    const llama = await getLlama({ build: 'never', gpu: 'cuda' });
    await llama.dispose();
    return undefined;
  } catch (error) {
    return (error as Error).message || (error as Error).name;
  }
}

const problem = await cudaProblem();
if (problem)
  console.warn(
    `skipping CUDA equality tests: llama.cpp's CUDA backend does not load here (${problem}); on a host with an NVIDIA driver run npx irserve-gpu-install cuda`,
  );

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

describe.skipIf(problem === undefined)('without a CUDA backend', () => {
  it('device "cuda" is refused with the install step, never run on the CPU', async () => {
    const attempt = new GgufModelPool().acquire(
      { path: TINY_EMBED, role: 'embedding', device: 'cuda', gpuLayers: 'auto' },
      silent,
    );
    await expect(attempt).rejects.toThrow(/device "cuda".*npx irserve-gpu-install cuda/);
  });
});

describe.skipIf(problem !== undefined)('on CUDA', () => {
  it('embeddings equal the CPU ones within fp16 tolerance', async () => {
    const [gpu, cpu] = [await embedOn('cuda'), await embedOn('cpu')];
    gpu.forEach((vector, i) =>
      vector.forEach((x, j) => expect(Math.abs(x - cpu[i]![j]!)).toBeLessThan(1e-2)),
    );
  });

  it('ranking scores equal the CPU ones within fp16 tolerance', async () => {
    const [gpu, cpu] = [await rankOn('cuda'), await rankOn('cpu')];
    gpu.forEach((score, i) => expect(Math.abs(score - cpu[i]!)).toBeLessThan(1e-2));
  });
});
