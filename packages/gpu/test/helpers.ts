/** The committed GGUF fixtures (written by fixtures/make-gguf.ts) and a small app world. */
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { App } from 'irserve';
import type { EngineClass } from 'irserve/plugin';
import { AERO_DOCS, startTestApp, tempDir, writeCollection } from 'irserve/testing';
import { saveIndex, trainAndAdd } from '../../dense/src/vector-index/index.js';
import { ggufEmbedder, GgufModelPool } from '../src/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const TINY_EMBED = `${FIXTURES}tiny-embed.gguf`;
export const TINY_RERANK = `${FIXTURES}tiny-rerank.gguf`;
export const TINY_NO_POOLING = `${FIXTURES}tiny-no-pooling.gguf`;

export const DOCS = AERO_DOCS;

export const silent = pino({ level: 'silent' });

/** Embeddings of `texts` by the tiny model on the CPU, outside any engine. */
export async function embedDirect(texts: string[]): Promise<Float32Array[]> {
  const lease = await new GgufModelPool().acquire(
    { path: TINY_EMBED, role: 'embedding', device: 'cpu', gpuLayers: 'auto', threads: 1 },
    silent,
  );
  const embedder = await ggufEmbedder(lease, {
    maxLength: 512,
    contextSize: undefined,
    contexts: 1,
    threads: 1,
    normalize: true,
  });
  try {
    return await embedder.embed(texts);
  } finally {
    await embedder.close();
  }
}

export interface GpuWorld {
  dir: string;
  indexDir: string;
  collection: Record<string, unknown>;
  close(): Promise<void>;
}

/** A JSONL collection and a Flat index of the tiny model's embeddings of it. */
export async function gpuWorld(): Promise<GpuWorld> {
  const dir = await tempDir('irserve-gpu-');
  const collection = await writeCollection(dir, 'aero', DOCS);
  const vectors = await embedDirect(DOCS.map((d) => d.text));
  const dim = vectors[0]!.length;
  const features = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => features.set(v, i * dim));
  const indexDir = dir.join('index');
  await saveIndex(
    trainAndAdd('Flat', features, dim, 'ip'),
    DOCS.map((d) => d.id),
    indexDir,
  );
  return { dir: dir.path, indexDir, collection, close: () => dir.remove() };
}

/** An app over `config` with `engines`, started (relative paths resolve against `dir`). */
export async function startApp(
  config: Record<string, unknown>,
  dir: string,
  engines: EngineClass[],
  logger = silent,
): Promise<App> {
  return (await startTestApp(config, { engines, dir, logger })).app;
}

export { post } from 'irserve/testing';
