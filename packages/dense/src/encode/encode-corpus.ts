/**
 * Encodes a corpus with a local ONNX model into `.npy` dict shards (`{"features", "ids"}`,
 * RoutIR's format) that irserve-build-index reads: `shard-00000.npy`, `shard-00001.npy`, ...
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createProgress, type ProgressLogger } from 'irserve';
import { writeDictShard } from '../formats/index.js';
import { importOnnx } from '../engine/local-embedder.js';
import type { EncodeDocument } from './documents.js';

export interface EncodeOptions {
  /** Documents to encode, and how many there are (for the progress bar). */
  documents: () => AsyncIterable<EncodeDocument>;
  total: number;
  outputDir: string;
  /** The model folder (model.onnx + tokenizer.json). */
  modelPath: string;
  /** Template of a passage's text; `{passage}` is replaced. */
  passagePrompt?: string;
  pooling?: 'cls' | 'mean' | 'max' | 'last_token' | 'none';
  normalize?: boolean;
  maxLength?: number;
  /** Texts per session.run (default 32). */
  batchSize?: number;
  /** Vectors per shard file (default 50000, as RoutIR). */
  docsPerFile?: number;
  dtype?: 'float32' | 'float16';
  intraOpThreads?: number;
  logger?: ProgressLogger;
  interactive?: boolean;
}

export interface EncodeReport {
  count: number;
  dim: number;
  shards: string[];
  seconds: number;
}

/**
 * Reads, embeds and writes; a shard is written as soon as it is full, so memory stays at one
 * shard of vectors.
 *
 * @example
 * await encodeCorpus({ documents: () => jsonlDocuments(src), total, outputDir: 'emb', modelPath: 'models/minilm' });
 */
export async function encodeCorpus(options: EncodeOptions): Promise<EncodeReport> {
  const started = performance.now();
  const onnx = await importOnnx(import('@irserve/onnx'));
  const lease = await new onnx.SessionPool().acquire(options.modelPath, {
    intra_op_threads: options.intraOpThreads ?? 0,
  });
  const encoder = new onnx.TextEncoder(lease, {
    batchSize: options.batchSize ?? 32,
    ...(options.pooling ? { pooling: options.pooling } : {}),
    ...(options.normalize !== undefined ? { normalize: options.normalize } : {}),
    ...(options.maxLength ? { maxLength: options.maxLength } : {}),
  });
  await mkdir(options.outputDir, { recursive: true });
  const perFile = options.docsPerFile ?? 50_000;
  const prompt = options.passagePrompt ?? '{passage}';
  const bar = createProgress({
    label: 'encode',
    total: options.total,
    unit: 'docs',
    interactive: options.interactive ?? false,
    logger: options.logger ?? { info: () => {} },
  });
  const shards: string[] = [];
  let pending: EncodeDocument[] = [];
  let vectors: Float32Array[] = [];
  let ids: string[] = [];
  let count = 0;
  let dim = 0;
  const flush = async () => {
    if (ids.length === 0) return;
    const path = join(options.outputDir, `shard-${String(shards.length).padStart(5, '0')}.npy`);
    dim = vectors[0]!.length;
    const packed = new Float32Array(ids.length * dim);
    vectors.forEach((vector, i) => packed.set(vector, i * dim));
    await writeDictShard(path, packed, dim, ids, options.dtype ?? 'float32');
    shards.push(path);
    vectors = [];
    ids = [];
  };
  const embedPending = async () => {
    const texts = pending.map((doc) => prompt.split('{passage}').join(doc.text));
    vectors.push(...(await encoder.embed(texts)));
    ids.push(...pending.map((doc) => doc.id));
    count += pending.length;
    bar.update(count);
    pending = [];
    if (ids.length >= perFile) await flush();
  };
  try {
    for await (const doc of options.documents()) {
      pending.push(doc);
      if (pending.length >= Math.min(perFile - ids.length, encoder.batchSize * 8))
        await embedPending();
    }
    await embedPending();
    await flush();
  } finally {
    bar.done();
    await encoder.close();
  }
  if (count === 0) throw new Error('no document with text to encode');
  return { count, dim, shards, seconds: (performance.now() - started) / 1000 };
}
