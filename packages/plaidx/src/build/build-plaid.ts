/**
 * Builds a PLAID index from token-embedding shards, as ColBERT's indexer does: sample
 * passages, train centroids and residual buckets, then encode every shard into one chunk of
 * codes and packed residuals, and invert the codes into the passage IVF. The output is the
 * `.npy` layout (next-plaid's file names) with `mapping.tsv` and a checksummed manifest.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { samplePositions, seededRandom } from '@irserve/dense';
import { createProgress, type ProgressLogger } from 'irserve';
import { SUPPORTED_NBITS } from '../index/codec.js';
import { encodeShards } from './encode-shards.js';
import type { ShardSource } from './token-shards.js';
import { trainCodec, type TrainedCodec } from './train-codec.js';
import { writeGlobals } from './write-globals.js';

export interface BuildPlaidOptions {
  source: ShardSource;
  outputDir: string;
  /** Bits per residual dimension: 1, 2 (default) or 4. */
  nbits?: number;
  /** Centroids; default ColBERT's 2^floor(log2(16 * sqrt(embeddings))). */
  partitions?: number;
  /** k-means iterations (ColBERT: 4). */
  kmeansIterations?: number;
  /** Passages sampled for training; default ColBERT's 16 * sqrt(120 * passages). */
  samplePassages?: number;
  seed?: number;
  interactive?: boolean;
  logger?: ProgressLogger;
}

export interface BuildPlaidReport {
  outputDir: string;
  passages: number;
  embeddings: number;
  dim: number;
  nbits: number;
  partitions: number;
  chunks: number;
  seconds: number;
  indexBytes: number;
}

interface Counts {
  passages: number;
  embeddings: number;
  dim: number;
}

/**
 * Builds the index; every problem is an Error naming the shard or the option.
 *
 * @example await buildPlaidIndex({ source: fileShards(paths), outputDir: 'idx', nbits: 2 })
 */
export async function buildPlaidIndex(options: BuildPlaidOptions): Promise<BuildPlaidReport> {
  const started = performance.now();
  const nbits = options.nbits ?? 2;
  if (!SUPPORTED_NBITS.includes(nbits as 1))
    throw new Error(`--nbits must be 1, 2 or 4, got ${nbits}`);
  if (options.source.count === 0) throw new Error('no shards to index');
  await prepareOutput(options.outputDir);
  const progress = (label: string, total: number) =>
    createProgress({
      label,
      total,
      interactive: options.interactive ?? false,
      logger: options.logger ?? { info: () => {} },
    });
  const counts = await countShards(options.source, progress('counting', options.source.count));
  if ((counts.dim * nbits) % 8 !== 0)
    throw new Error(`dimension ${counts.dim} times nbits ${nbits} must be a multiple of 8`);
  const codec = await train(options, counts, nbits, progress);
  const encoded = await encodeShards(
    options.source,
    codec,
    options.outputDir,
    nbits,
    counts,
    progress('encoding', options.source.count),
  );
  const indexBytes = await writeGlobals(options.outputDir, codec, encoded, {
    nbits,
    dim: counts.dim,
    kmeansIterations: options.kmeansIterations ?? 4,
  });
  return {
    outputDir: options.outputDir,
    passages: counts.passages,
    embeddings: counts.embeddings,
    dim: counts.dim,
    nbits,
    partitions: codec.centroids.length / counts.dim,
    chunks: options.source.count,
    seconds: (performance.now() - started) / 1000,
    indexBytes,
  };
}

async function prepareOutput(dir: string): Promise<void> {
  const existing = await readdir(dir).catch(() => undefined);
  if (existing && existing.length > 0) throw new Error(`output directory ${dir} is not empty`);
  if (
    !existing &&
    (await stat(dir).then(
      () => true,
      () => false,
    ))
  )
    throw new Error(`${dir} is not a directory`);
  await mkdir(dir, { recursive: true });
}

async function countShards(
  source: ShardSource,
  bar: ReturnType<typeof createProgress>,
): Promise<Counts> {
  const counts: Counts = { passages: 0, embeddings: 0, dim: 0 };
  for (let i = 0; i < source.count; i++) {
    const shard = await source.load(i);
    if (counts.dim !== 0 && shard.dim !== counts.dim)
      throw new Error(
        `${source.label(i)}: dimension ${shard.dim} differs from the first shard's ${counts.dim}`,
      );
    counts.dim = shard.dim;
    counts.passages += shard.doclens.length;
    counts.embeddings += shard.features.length / shard.dim;
    bar.tick();
  }
  bar.done();
  if (counts.embeddings === 0) throw new Error('the shards hold no token embeddings');
  return counts;
}

/** ColBERT's defaults: the sample and partition counts grow with the square root of the corpus. */
export function defaultSizes(
  passages: number,
  embeddings: number,
): { sample: number; partitions: number } {
  return {
    sample: Math.min(passages, 1 + Math.floor(16 * Math.sqrt(120 * passages))),
    partitions: 2 ** Math.floor(Math.log2(16 * Math.sqrt(embeddings))),
  };
}

async function train(
  options: BuildPlaidOptions,
  counts: Counts,
  nbits: number,
  progress: (label: string, total: number) => ReturnType<typeof createProgress>,
): Promise<TrainedCodec> {
  const defaults = defaultSizes(counts.passages, counts.embeddings);
  const seed = options.seed ?? 123;
  const wanted = samplePositions(
    counts.passages,
    Math.min(counts.passages, options.samplePassages ?? defaults.sample),
    seededRandom(seed),
  );
  const rows = await gatherSample(
    options.source,
    wanted,
    counts.dim,
    progress('sampling', options.source.count),
  );
  // Every 20th sampled token is held out for the buckets (ColBERT holds out 5%).
  const { training, heldout } = splitHeldout(rows, counts.dim);
  const trainingRows = training.length / counts.dim;
  const partitions = options.partitions ?? Math.min(defaults.partitions, trainingRows);
  if (partitions < 1 || partitions > trainingRows)
    throw new Error(
      `--partitions ${partitions} needs at least as many training tokens; the sample has ${trainingRows} (raise the sample or lower --partitions)`,
    );
  const iterations = options.kmeansIterations ?? 4;
  // faiss (which ColBERT's k-means is) trains on at most 256 points per centroid.
  const capped =
    training.length / counts.dim > 256 * partitions
      ? training.subarray(0, 256 * partitions * counts.dim)
      : training;
  const bar = progress(
    `k-means (${partitions} centroids, ${capped.length / counts.dim} tokens)`,
    iterations,
  );
  const codec = trainCodec(capped, heldout.length > 0 ? heldout : capped, {
    dim: counts.dim,
    partitions,
    nbits,
    iterations,
    seed,
    onIteration: () => bar.tick(),
  });
  bar.done();
  return codec;
}

async function gatherSample(
  source: ShardSource,
  wanted: Int32Array,
  dim: number,
  bar: ReturnType<typeof createProgress>,
): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  let next = 0;
  let pid = 0;
  for (let i = 0; i < source.count; i++) {
    const shard = await source.load(i);
    let row = 0;
    for (const length of shard.doclens) {
      if (wanted[next] === pid) {
        parts.push(shard.features.slice(row * dim, (row + length) * dim));
        next++;
      }
      row += length;
      pid++;
    }
    bar.tick();
  }
  bar.done();
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function splitHeldout(
  rows: Float32Array,
  dim: number,
): { training: Float32Array; heldout: Float32Array } {
  const count = rows.length / dim;
  const held = count >= 40 ? Math.min(50_000, Math.floor(count / 20)) : 0;
  const heldRows: number[] = [];
  for (let r = 0; r < count && heldRows.length < held; r += 20) heldRows.push(r);
  const heldSet = new Set(heldRows);
  const training = new Float32Array((count - heldRows.length) * dim);
  const heldout = new Float32Array(heldRows.length * dim);
  let t = 0;
  let h = 0;
  for (let r = 0; r < count; r++) {
    const row = rows.subarray(r * dim, (r + 1) * dim);
    if (heldSet.has(r)) heldout.set(row, h++ * dim);
    else training.set(row, t++ * dim);
  }
  return { training, heldout };
}
