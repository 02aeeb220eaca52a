/**
 * Encodes a corpus with a local ONNX model into `.npy` dict shards (`{"features", "ids"}`,
 * RoutIR's format) that irserve-build-index reads: `shard-00000.npy`, `shard-00001.npy`, ...
 */
import { mkdir } from 'node:fs/promises';
import type * as Onnx from '@irserve/onnx';
import { createProgress, type Progress, type ProgressLogger } from 'irserve';
import { createModelSource } from 'irserve/plugin';
import { importOnnx } from '../engine/local-embedder.js';
import type { EncodeDocument } from './documents.js';
import { ShardWriter } from './shard-writer.js';

export interface EncodeOptions {
  /** Documents to encode, and how many there are (for the progress bar). */
  documents: () => AsyncIterable<EncodeDocument>;
  total: number;
  outputDir: string;
  /** The model folder (model.onnx + tokenizer.json), or a Hugging Face Hub id. */
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
  const encoder = await openEncoder(options);
  let encoded: { count: number; writer: ShardWriter };
  // The model is loaded: every way out from here closes it (its session is native memory).
  try {
    await mkdir(options.outputDir, { recursive: true });
    encoded = await encodeWithProgress(options, encoder);
  } finally {
    await encoder.close();
  }
  const { count, writer } = encoded;
  if (count === 0) throw new Error('no document with text to encode');
  const { dim, shards } = writer;
  return { count, dim, shards, seconds: (performance.now() - started) / 1000 };
}

/** `encodeDocuments` into a new shard writer, with a progress bar over the documents. */
async function encodeWithProgress(
  options: EncodeOptions,
  encoder: Onnx.TextEncoder,
): Promise<{ count: number; writer: ShardWriter }> {
  const bar = createProgress({
    label: 'encode',
    total: options.total,
    unit: 'docs',
    interactive: options.interactive ?? false,
    logger: options.logger ?? { info: () => {} },
  });
  const writer = new ShardWriter(options.outputDir, options.dtype ?? 'float32');
  try {
    return { count: await encodeDocuments(options, encoder, writer, bar), writer };
  } finally {
    bar.done();
  }
}

/**
 * Loads the model (a folder, or a hub id fetched into the Hugging Face cache) into a text
 * encoder with the options' pooling, length and threads.
 */
async function openEncoder(options: EncodeOptions): Promise<Onnx.TextEncoder> {
  const onnx = await importOnnx(import('@irserve/onnx'));
  const model = await createModelSource({
    configDir: process.cwd(),
    logger: options.logger ?? { info: () => {} },
    interactive: options.interactive ?? false,
  }).resolve({ reference: options.modelPath, kind: 'onnx', field: '--model' });
  const lease = await new onnx.SessionPool().acquire(model.folder, {
    ...(model.modelFile ? { modelFile: model.modelFile } : {}),
    intra_op_threads: options.intraOpThreads ?? 0,
    head: 'hidden',
  });
  try {
    return new onnx.TextEncoder(lease, {
      batchSize: options.batchSize ?? 32,
      ...(options.pooling ? { pooling: options.pooling } : {}),
      ...(options.normalize !== undefined ? { normalize: options.normalize } : {}),
      ...(options.maxLength ? { maxLength: options.maxLength } : {}),
    });
  } catch (error) {
    // Options the encoder refuses (a pooling the model cannot give): the session goes back.
    await lease.release();
    throw error;
  }
}

/**
 * Embeds every document in batches of up to 8 model runs, never past the end of a shard, and
 * writes each shard as it fills; returns how many documents were encoded.
 */
async function encodeDocuments(
  options: EncodeOptions,
  encoder: Onnx.TextEncoder,
  writer: ShardWriter,
  bar: Progress,
): Promise<number> {
  const perFile = options.docsPerFile ?? 50_000;
  const prompt = options.passagePrompt ?? `${encoder.prefixes.passage ?? ''}{passage}`;
  let pending: EncodeDocument[] = [];
  let count = 0;
  const embedPending = async () => {
    const texts = pending.map((doc) => prompt.split('{passage}').join(doc.text));
    writer.add(
      await encoder.embed(texts),
      pending.map((doc) => doc.id),
    );
    count += pending.length;
    bar.update(count);
    pending = [];
    if (writer.buffered >= perFile) await writer.flush();
  };
  for await (const doc of options.documents()) {
    pending.push(doc);
    if (pending.length >= Math.min(perFile - writer.buffered, encoder.batchSize * 8))
      await embedPending();
  }
  await embedPending();
  await writer.flush();
  return count;
}
