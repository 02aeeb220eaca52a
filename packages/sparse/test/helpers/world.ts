/**
 * A small world for LSR engine tests: a JSONL collection, its passages encoded by the toy
 * SPLADE into an encoded corpus, a sparse index built from it, the vocabulary as a
 * tokenizer.json, a subset mapping, and a TEI stand-in.
 */
import { pino } from 'pino';
import { tempDir, writeCollection, writeSubsets } from 'irserve/testing';
import { buildSparseIndex } from '../../src/build/build-index.js';
import { VOCABULARY, startTeiServer, toyEncode, type TeiServer } from './tei-server.js';

export const DOCS = [
  { id: 'd1', title: 'Jet engines', text: 'turbine thrust of jet engines' },
  { id: 'd2', title: 'Boundary layers', text: 'laminar boundary layer flow' },
  { id: 'd3', title: 'Shock waves', text: 'supersonic shock wave on a wedge' },
  { id: 'd4', title: 'Wing flutter', text: 'flutter of wings at speed' },
  { id: 'd5', title: 'Heat transfer', text: 'heat transfer in hypersonic flow' },
  { id: 'd6', title: 'Propellers', text: 'propeller noise and thrust at low speed' },
];

/** Passages: each document's title and text, `doc::0` and `doc::1` (MaxP groups them). */
export const PASSAGES = DOCS.flatMap((doc) => [
  { id: `${doc.id}::0`, text: doc.title },
  { id: `${doc.id}::1`, text: doc.text },
]);

export interface LsrWorld {
  dir: string;
  indexDir: string;
  tei: TeiServer;
  config(lsr?: Record<string, unknown>, service?: Record<string, unknown>): Record<string, unknown>;
}

export async function lsrWorld(quantization = 50): Promise<LsrWorld> {
  const dir = await tempDir('irserve-sparse-');
  const collection = await writeCollection(dir, 'aero', DOCS, ['title', 'text']);
  const encoded = PASSAGES.map((p) => ({ id: p.id, vector: toyEncode(p.text) }));
  const indexDir = dir.join('index');
  await buildSparseIndex({
    input: await dir.writeJsonl('encoded.jsonl', encoded),
    outputDir: indexDir,
    quantization,
    logger: pino({ level: 'silent' }),
  });
  const vocab = Object.fromEntries(VOCABULARY.map((token, id) => [token, id]));
  await dir.write('tokenizer.json', JSON.stringify({ model: { type: 'WordPiece', vocab } }));
  await writeSubsets(
    dir,
    DOCS.map((doc) => doc.id),
  );
  const tei = await startTeiServer();
  const config = (lsr: Record<string, unknown> = {}, service: Record<string, unknown> = {}) => ({
    collections: [collection],
    services: [
      { name: 'bm25', engine: 'BM25', config: { collection: 'aero' } },
      {
        name: 'lsr',
        engine: 'LSR',
        max_wait_time: 0.05,
        ...service,
        config: {
          index_path: 'index',
          encoder_url: tei.url,
          vocab_path: 'tokenizer.json',
          api_key: 'tei-secret',
          max_terms: 30,
          ...lsr,
        },
      },
      { name: 'vectors', engine: 'Sparse', config: { index_path: 'index' } },
    ],
  });
  return { dir: dir.path, indexDir, tei, config };
}
