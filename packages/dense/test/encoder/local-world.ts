/**
 * A world for the local encoder: a JSONL collection and a Flat index of the tiny ONNX encoder's
 * embeddings of it (tiny-bert from @irserve/onnx's fixtures: mean pooling, normalised, dim 32).
 */
import { fileURLToPath } from 'node:url';
import { SessionPool, TextEncoder } from '@irserve/onnx';
import { tempDir, writeCollection } from 'irserve/testing';
import { saveIndex, trainAndAdd } from '../../src/vector-index/index.js';

export const TINY_BERT = fileURLToPath(
  new URL('../../../onnx/test/fixtures/models/tiny-bert', import.meta.url),
);
export const TINY_CROSS_ENCODER = fileURLToPath(
  new URL('../../../onnx/test/fixtures/models/tiny-cross-encoder', import.meta.url),
);

export const DOCS = [
  { id: 'd1', text: 'the quick brown fox jump over the lazy dog' },
  { id: 'd2', text: 'how do i cook pasta in salt water' },
  { id: 'd3', text: 'a cat is a neural retrieval model' },
  { id: 'd4', text: 'what is a search engine for the world' },
  { id: 'd5', text: 'boil water with salt for the pasta' },
];

/** Embeds `texts` with tiny-bert as the engine would (no prompts). */
export async function embedDirect(texts: string[]): Promise<Float32Array[]> {
  const encoder = new TextEncoder(await new SessionPool().acquire(TINY_BERT));
  try {
    return await encoder.embed(texts);
  } finally {
    await encoder.close();
  }
}

export interface LocalWorld {
  dir: string;
  indexDir: string;
  collection: Record<string, unknown>;
  close(): Promise<void>;
}

export async function localWorld(): Promise<LocalWorld> {
  const dir = await tempDir('irserve-dense-local-');
  const collection = await writeCollection(dir, 'tiny', DOCS);
  const vectors = await embedDirect(DOCS.map((d) => `passage: ${d.text}`));
  const features = new Float32Array(vectors.length * 32);
  vectors.forEach((v, i) => features.set(v, i * 32));
  const indexDir = dir.join('index');
  await saveIndex(
    trainAndAdd('Flat', features, 32, 'ip'),
    DOCS.map((d) => d.id),
    indexDir,
  );
  return { dir: dir.path, indexDir, collection, close: () => dir.remove() };
}
