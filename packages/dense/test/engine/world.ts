/**
 * A small world for Dense engine tests: a JSONL collection, a Flat index of its bag-of-words
 * embeddings, a subset mapping, and a stand-in embeddings API.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveIndex, trainAndAdd } from '../../src/vector-index/index.js';
import { bagOfWords, startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js';

export const DIM = 64;

export const DOCS = [
  { id: 'd1', title: 'Jet engines', text: 'turbine compressor thrust of jet engines' },
  { id: 'd2', title: 'Boundary layers', text: 'laminar boundary layer transition on a flat plate' },
  { id: 'd3', title: 'Shock waves', text: 'supersonic shock wave reflection from a wedge' },
  { id: 'd4', title: 'Wing flutter', text: 'flutter of swept wings at transonic speed' },
  { id: 'd5', title: 'Heat transfer', text: 'heat transfer in hypersonic boundary layer flow' },
  { id: 'd6', title: 'Propellers', text: 'propeller noise and thrust at low speed' },
];

export interface DenseWorld {
  dir: string;
  indexDir: string;
  api: EmbeddingsServer;
  /** A config with a collection, BM25 and Dense services over it. */
  config(
    dense?: Record<string, unknown>,
    service?: Record<string, unknown>,
  ): Record<string, unknown>;
}

export async function denseWorld(): Promise<DenseWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-dense-'));
  await writeFile(
    join(dir, 'corpus.jsonl'),
    DOCS.map((doc) => JSON.stringify(doc)).join('\n') + '\n',
  );
  const features = new Float32Array(DOCS.length * DIM);
  DOCS.forEach((doc, i) => features.set(bagOfWords(`${doc.title} ${doc.text}`, DIM), i * DIM));
  const indexDir = join(dir, 'index');
  await saveIndex(
    trainAndAdd('Flat', features, DIM, 'ip'),
    DOCS.map((doc) => doc.id),
    indexDir,
  );
  await writeFile(
    join(dir, 'subsets.tsv'),
    DOCS.map((doc, i) => `${doc.id}\t${i % 2 === 0 ? 'odd' : 'even'}`).join('\n'),
  );
  const api = await startEmbeddingsServer(DIM);
  const config = (dense: Record<string, unknown> = {}, service: Record<string, unknown> = {}) => ({
    collections: [
      {
        name: 'aero',
        views: {
          text: {
            kind: 'text',
            source: {
              source: 'text_jsonl',
              doc_path: join(dir, 'corpus.jsonl'),
              id_field: 'id',
              content_fields: ['title', 'text'],
            },
          },
        },
      },
    ],
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
  return { dir, indexDir, api, config };
}
