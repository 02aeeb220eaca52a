/**
 * A small world for Dense engine tests: the aeronautics corpus as a collection, a Flat index of
 * its bag-of-words embeddings, a subset mapping, and a stand-in embeddings API (irserve/testing).
 */
import {
  AERO_DOCS,
  bagOfWords,
  startEmbeddingsStandIn,
  tempDir,
  writeCollection,
  writeSubsets,
  type EmbeddingsStandIn,
} from 'irserve/testing';
import { saveIndex, trainAndAdd } from '../../src/vector-index/index.js';

export const DIM = 64;

export const DOCS = AERO_DOCS;

export interface DenseWorld {
  dir: string;
  indexDir: string;
  api: EmbeddingsStandIn;
  /** A config with a collection, BM25 and Dense services over it. */
  config(
    dense?: Record<string, unknown>,
    service?: Record<string, unknown>,
  ): Record<string, unknown>;
}

export async function denseWorld(): Promise<DenseWorld> {
  const dir = await tempDir('irserve-dense-');
  const collection = await writeCollection(dir, 'aero', DOCS, ['title', 'text']);
  const features = new Float32Array(DOCS.length * DIM);
  DOCS.forEach((doc, i) => features.set(bagOfWords(`${doc.title} ${doc.text}`, DIM), i * DIM));
  const indexDir = dir.join('index');
  await saveIndex(
    trainAndAdd('Flat', features, DIM, 'ip'),
    DOCS.map((doc) => doc.id),
    indexDir,
  );
  await writeSubsets(
    dir,
    DOCS.map((doc) => doc.id),
  );
  const api = await startEmbeddingsStandIn(DIM);
  const config = (dense: Record<string, unknown> = {}, service: Record<string, unknown> = {}) => ({
    collections: [collection],
    services: [
      { name: 'bm25', engine: 'BM25', config: { collection: 'aero' } },
      {
        name: 'dense',
        engine: 'Dense',
        max_wait_time: 0.05,
        ...service,
        config: {
          index_path: indexDir,
          embedding_base_url: api.url,
          embedding_model_name: 'bag-of-words',
          api_key: 'sk-test-secret',
          ...dense,
        },
      },
    ],
  });
  return { dir: dir.path, indexDir, api, config };
}
