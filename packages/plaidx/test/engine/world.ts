/**
 * A small world for PLAIDX engine tests: documents split into passages (`d3_0`, `d3_1`), a
 * PLAID index built from their word vectors, a JSONL collection for BM25, a subset mapping,
 * and a stand-in HTTP ColBERT encoder.
 */
import { tempDir, writeCollection, writeSubsets } from 'irserve/testing';
import { buildPlaidIndex } from '../../src/build/build-plaid.js';
import { memoryShards, type TokenShard } from '../../src/build/token-shards.js';
import { startEncoderServer, wordVectors, type EncoderServer } from './encoder-server.js';

export const DIM = 32;

export const DOCS = [
  { id: 'd1', passages: ['turbine compressor thrust', 'jet engines burn kerosene'] },
  { id: 'd2', passages: ['laminar boundary layer', 'transition on a flat plate'] },
  { id: 'd3', passages: ['supersonic shock wave', 'reflection from a wedge'] },
  { id: 'd4', passages: ['flutter of swept wings', 'at transonic speed'] },
  { id: 'd5', passages: ['heat transfer hypersonic', 'boundary layer flow'] },
  { id: 'd6', passages: ['propeller noise', 'thrust at low speed'] },
];

export interface PlaidWorld {
  dir: string;
  indexDir: string;
  encoder: EncoderServer;
  config(
    plaidx?: Record<string, unknown>,
    service?: Record<string, unknown>,
  ): Record<string, unknown>;
}

function shardOf(): TokenShard {
  const passages = DOCS.flatMap((doc) =>
    doc.passages.map((text, i) => ({ id: `${doc.id}_${i}`, text })),
  );
  const rows = passages.map((p) => wordVectors(p.text, DIM));
  const features = new Float32Array(rows.flat(2));
  return {
    features,
    dim: DIM,
    doclens: Int32Array.from(rows.map((r) => r.length)),
    ids: passages.map((p) => p.id),
  };
}

export async function plaidWorld(): Promise<PlaidWorld> {
  const dir = await tempDir('irserve-plaidx-');
  const corpus = DOCS.map((doc) => ({ id: doc.id, text: doc.passages.join(' ') }));
  const collection = await writeCollection(dir, 'aero', corpus);
  const indexDir = dir.join('index');
  await buildPlaidIndex({
    source: memoryShards([shardOf()]),
    outputDir: indexDir,
    nbits: 4,
    partitions: 32,
  });
  await writeSubsets(
    dir,
    DOCS.map((doc) => doc.id),
  );
  const encoder = await startEncoderServer(DIM);
  const config = (plaidx: Record<string, unknown> = {}, service: Record<string, unknown> = {}) => ({
    collections: [collection],
    services: [
      { name: 'bm25', engine: 'BM25', config: { collection: 'aero' } },
      {
        name: 'plaidx',
        engine: 'PLAIDX',
        max_wait_time: 0.05,
        ...service,
        config: {
          index_path: 'index',
          encoder_url: encoder.url,
          api_key: 'sk-test-secret',
          ...plaidx,
        },
      },
    ],
  });
  return { dir: dir.path, indexDir, encoder, config };
}
