/** The committed GGUF fixtures (written by fixtures/make-gguf.ts) and a small app world. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp, type App } from 'irserve';
import type { EngineClass } from 'irserve/plugin';
import { saveIndex, trainAndAdd } from '../../dense/src/vector-index/index.js';
import { ggufEmbedder, GgufModelPool } from '../src/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const TINY_EMBED = `${FIXTURES}tiny-embed.gguf`;
export const TINY_RERANK = `${FIXTURES}tiny-rerank.gguf`;
export const TINY_NO_POOLING = `${FIXTURES}tiny-no-pooling.gguf`;

export const DOCS = [
  { id: 'd1', text: 'turbine compressor thrust of jet engines' },
  { id: 'd2', text: 'laminar boundary layer transition on a flat plate' },
  { id: 'd3', text: 'supersonic shock wave reflection from a wedge' },
  { id: 'd4', text: 'flutter of swept wings at transonic speed' },
  { id: 'd5', text: 'heat transfer in hypersonic boundary layer flow' },
  { id: 'd6', text: 'propeller noise and thrust at low speed' },
];

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
  const dir = await mkdtemp(join(tmpdir(), 'irserve-gpu-'));
  await writeFile(join(dir, 'corpus.jsonl'), DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const vectors = await embedDirect(DOCS.map((d) => d.text));
  const dim = vectors[0]!.length;
  const features = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => features.set(v, i * dim));
  const indexDir = join(dir, 'index');
  await saveIndex(
    trainAndAdd('Flat', features, dim, 'ip'),
    DOCS.map((d) => d.id),
    indexDir,
  );
  const collection = {
    name: 'aero',
    views: {
      text: {
        kind: 'text',
        source: {
          source: 'text_jsonl',
          doc_path: join(dir, 'corpus.jsonl'),
          id_field: 'id',
          content_fields: ['text'],
        },
      },
    },
  };
  return { dir, indexDir, collection, close: () => rm(dir, { recursive: true, force: true }) };
}

export async function startApp(
  config: Record<string, unknown>,
  dir: string,
  engines: EngineClass[],
  logger = silent,
): Promise<App> {
  const app = await createApp(config, {
    logger,
    engines,
    extras: false,
    interactive: false,
    configDir: dir,
    cacheDir: join(dir, 'cache'),
  });
  await app.start();
  return app;
}

export async function post(app: App, url: string, payload: Record<string, unknown>) {
  const reply = await app.http.inject({ method: 'POST', url, payload });
  return { status: reply.statusCode, body: reply.json() };
}
