import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listShards, readShard } from '../formats/index.js';
import { parseFactory } from '../vector-index/factory.js';
import type { Manifest } from '../vector-index/manifest.js';
import { saveIndex } from '../vector-index/storage.js';
import { trainOnGpu } from './gpu-training.js';
import type { TrainOptions, TrainPhase } from '../vector-index/train-options.js';
import { trainAndAdd } from '../vector-index/train.js';
import type { Metric } from '../vector-index/types.js';
import { createProgress, type Progress, type ProgressLogger } from 'irserve';

export interface BuildIndexOptions {
  /** A directory of `.npy` dict shards / `.npz` files (RoutIR's embedding output). */
  inputDir: string;
  outputDir: string;
  /** A faiss-style factory string: `Flat`, `HNSW32`, `IVF1024,PQ64`, ... */
  indexString: string;
  /** Fraction of the vectors that trains IVF / PQ (0 < f <= 1; default 0.25 as RoutIR). */
  samplingRate?: number;
  /** Default 0, as RoutIR. */
  seed?: number;
  metric?: Metric;
  /** Train IVF / PQ on a GPU through @irserve/gpu (an error when none is usable). */
  useGpu?: boolean;
  /** With useGpu: force ONNX Runtime providers (tests run the GPU path on `["cpu"]`). */
  gpuProviders?: string[];
  threads?: number;
  efConstruction?: number;
  efSearch?: number;
  nprobe?: number;
  kmeansIterations?: number;
  logger?: ProgressLogger;
  /** Draw progress bars (default: stderr is a terminal). */
  interactive?: boolean;
}

export interface BuildReport {
  outputDir: string;
  factory: string;
  metric: Metric;
  count: number;
  dim: number;
  seconds: number;
  /** Bytes of all files in the output directory. */
  indexBytes: number;
  /** Peak resident set size of this process (resourceUsage().maxRSS). */
  peakRssBytes: number;
  manifest: Manifest;
}

/** Checks options before any file is read, so a bad flag fails in milliseconds. */
export function checkBuildOptions(options: BuildIndexOptions): void {
  const spec = parseFactory(options.indexString);
  const rate = options.samplingRate ?? 1;
  if (!(rate > 0 && rate <= 1)) {
    throw new Error(
      `sampling rate must be a number in (0, 1], got ${String(options.samplingRate)}`,
    );
  }
  if (options.useGpu && spec.kind !== 'ivf-flat' && spec.kind !== 'ivf-pq') {
    throw new Error(
      `--use_gpu trains IVF centroids and PQ codebooks; ${spec.factory} has nothing to train (drop --use_gpu)`,
    );
  }
  const metric = options.metric ?? 'ip';
  if (metric !== 'ip' && metric !== 'l2')
    throw new Error(`metric must be ip or l2, got ${String(metric)}`);
  for (const key of [
    'threads',
    'efConstruction',
    'efSearch',
    'nprobe',
    'kmeansIterations',
  ] as const) {
    const value = options[key];
    const min = key === 'threads' ? 0 : 1;
    if (value !== undefined && (!Number.isInteger(value) || value < min)) {
      throw new Error(`${key} must be an integer >= ${min}, got ${String(value)}`);
    }
  }
}

/** Reads every shard into one matrix, in shard order, with their ids. */
async function readAll(inputDir: string, progress: (total: number) => Progress) {
  const paths = await listShards(inputDir);
  if (paths.length === 0) throw new Error(`no .npy or .npz shards in ${inputDir}`);
  const bar = progress(paths.length);
  const parts: Float32Array[] = [];
  const ids: string[] = [];
  let dim = 0;
  for (const [i, path] of paths.entries()) {
    const shard = await readShard(path);
    if (dim !== 0 && shard.dim !== dim) {
      throw new Error(`${path}: dimension ${shard.dim} differs from ${dim} in earlier shards`);
    }
    dim = shard.dim;
    parts.push(shard.features);
    for (const id of shard.ids) ids.push(id);
    bar.update(i + 1);
  }
  bar.done();
  const vectors = new Float32Array(ids.length * dim);
  let offset = 0;
  for (const part of parts) {
    vectors.set(part, offset);
    offset += part.length;
  }
  if (ids.length === 0) throw new Error(`the shards in ${inputDir} hold no vectors`);
  return { vectors, ids, dim };
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

/**
 * Builds an index directory from embedding shards: read, train (IVF/PQ, on a seeded sample),
 * add, write data files, `index.ids` and `manifest.json`.
 *
 * @example await buildIndex({ inputDir: 'emb', outputDir: 'idx', indexString: 'HNSW32' });
 */
export async function buildIndex(options: BuildIndexOptions): Promise<BuildReport> {
  checkBuildOptions(options);
  const started = performance.now();
  const logger = options.logger ?? { info: () => {} };
  const interactive = options.interactive ?? process.stderr.isTTY === true;
  const bar = (label: string, unit: string) => (total: number) =>
    createProgress({ label, total, unit, interactive, logger });
  const { vectors, ids, dim } = await readAll(options.inputDir, bar('read', 'shards'));
  const metric = options.metric ?? 'ip';
  const bars = new Map<TrainPhase, Progress>();
  // RoutIR's faiss_indexing.py defaults: a quarter of the vectors train, seed 0.
  const { inputDir, samplingRate = 0.25, seed = 0, threads = 0 } = options;
  const train: TrainOptions = {
    ...options,
    samplingRate,
    seed,
    threads,
    progress: (phase, done, total) => {
      let b = bars.get(phase);
      if (!b) bars.set(phase, (b = bar(phase, phase === 'add' ? 'vectors' : 'steps')(total)));
      b.update(done);
    },
  };
  const trainStarted = performance.now();
  if (options.useGpu) {
    const spec = parseFactory(options.indexString);
    const log = (line: string) => logger.info(line);
    train.trained = await trainOnGpu(spec, vectors, dim, metric, train, log, options.gpuProviders);
  }
  const index = trainAndAdd(options.indexString, vectors, dim, metric, train);
  const trainSeconds = (performance.now() - trainStarted) / 1000;
  for (const b of bars.values()) b.done();
  const build = { inputDir, samplingRate, seed, threads, trainAndAddSeconds: trainSeconds };
  const manifest = await saveIndex(index, ids, options.outputDir, build);
  const report: BuildReport = {
    outputDir: options.outputDir,
    factory: index.factory,
    metric,
    count: index.count,
    dim,
    seconds: (performance.now() - started) / 1000,
    indexBytes: await directoryBytes(options.outputDir),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    manifest,
  };
  return report;
}
