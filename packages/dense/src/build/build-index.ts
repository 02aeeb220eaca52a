import { availableParallelism } from 'node:os';
import { createProgress, type ProgressLogger } from 'irserve';
import { parseFactory } from '../vector-index/factory.js';
import { IDS_FILE, type Manifest } from '../vector-index/manifest.js';
import type { Metric } from '../vector-index/types.js';
import type { BuildContext, BuiltData } from './build-context.js';
import { IndexOutput } from './index-output.js';
import { defaultMemoryBudget } from './memory-budget.js';
import { fileVectorShards, surveyShards, type VectorShards } from './shard-passes.js';
import { streamFlat } from './stream-flat.js';
import { streamHnsw } from './stream-hnsw.js';
import { streamIvf } from './stream-ivf.js';

export interface BuildIndexOptions {
  /** A directory of `.npy` dict shards / `.npz` files (RoutIR's embedding output). */
  inputDir: string;
  /** The shards to read instead of `inputDir`'s files (tests, benchmarks, pipelines). */
  shards?: VectorShards;
  outputDir: string;
  /** A faiss-style factory string: `Flat`, `HNSW32`, `IVF1024,PQ64`, `SQ8`, ... */
  indexString: string;
  /** Fraction of the vectors that trains IVF / PQ / SQ8 (0 < f <= 1; default 0.25 as RoutIR). */
  samplingRate?: number;
  /** Default 0, as RoutIR. */
  seed?: number;
  metric?: Metric;
  /** Train IVF / PQ on a GPU through @irserve/gpu (an error when none is usable). */
  useGpu?: boolean;
  /** With useGpu: force ONNX Runtime providers (tests run the GPU path on `["cpu"]`). */
  gpuProviders?: string[];
  /** Threads for encoding, k-means and HNSW (0 or absent: every core). */
  threads?: number;
  /** Bytes the build may hold (default: half the machine's memory); larger builds spill to disk. */
  memoryBudget?: number;
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
  /** Bytes of the index's files. */
  indexBytes: number;
  /** Peak resident set size of this process (resourceUsage().maxRSS). */
  peakRssBytes: number;
  /** The memory budget the build kept to, the threads it used, the runs it spilled to disk. */
  memoryBudget: number;
  threads: number;
  runs: number;
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
    'memoryBudget',
  ] as const) {
    const value = options[key];
    const min = key === 'threads' ? 0 : 1;
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
      throw new Error(`${key} must be an integer >= ${min}, got ${String(value)}`);
    }
  }
}

/**
 * Builds an index directory from embedding shards, reading one shard at a time and holding at
 * most `memoryBudget` bytes of its own data: a survey pass (count, dimension, `index.ids`),
 * training on a seeded sample, then the vectors encoded on `threads` threads and written in
 * order (IVF lists through sorted runs spilled to disk when the budget is reached). The files
 * are those `saveIndex(trainAndAdd(...))` writes, byte for byte; `manifest.json` comes last,
 * and a failed build removes what it wrote.
 *
 * @example await buildIndex({ inputDir: 'emb', outputDir: 'idx', indexString: 'IVF1024,SQ8' });
 */
export async function buildIndex(options: BuildIndexOptions): Promise<BuildReport> {
  checkBuildOptions(options);
  const started = performance.now();
  const spec = parseFactory(options.indexString);
  const logger = options.logger ?? { info: () => {} };
  const interactive = options.interactive ?? process.stderr.isTTY === true;
  const threads = options.threads || availableParallelism();
  const memoryBudget = options.memoryBudget ?? defaultMemoryBudget();
  const shards = options.shards ?? (await fileVectorShards(options.inputDir));
  const output = await IndexOutput.prepare(options.outputDir);
  const bar = (label: string, total: number, unit: string) =>
    createProgress({ label, total, unit, interactive, logger });
  try {
    const survey = await survey_(shards, output, bar);
    const { samplingRate = 0.25, seed = 0, metric = 'ip' } = options;
    const ctx: BuildContext = {
      ...{ shards, survey, metric, threads, memoryBudget, output, bar },
      train: { ...options, samplingRate, seed, threads },
      ...(options.useGpu
        ? { useGpu: { providers: options.gpuProviders, log: (l: string) => logger.info(l) } }
        : {}),
    };
    const { kind, params, runs = 0 } = await buildData(ctx, spec);
    const seconds = (performance.now() - started) / 1000;
    const { inputDir } = options;
    const build = { inputDir, samplingRate, seed, threads, memoryBudget, runs, seconds };
    const { factory } = spec;
    const { count, dim } = survey;
    const manifest = await output.finish({ factory, kind, metric, dim, count, params, build });
    return {
      ...{ outputDir: options.outputDir, factory, metric, count, dim, seconds, manifest },
      ...{ indexBytes: output.bytes, memoryBudget, threads, runs },
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    };
  } catch (error) {
    await output.discard();
    throw error;
  }
}

/** The survey pass, writing `index.ids` as it goes. */
async function survey_(shards: VectorShards, output: IndexOutput, bar: BuildContext['bar']) {
  const ids = await output.writer(IDS_FILE);
  const encoder = new TextEncoder();
  const reading = bar('read', shards.count, 'shards');
  const survey = await surveyShards(
    shards,
    (list) => ids.write(encoder.encode(list.length ? list.join('\n') + '\n' : '')),
    (done) => reading.update(done),
  );
  reading.done();
  await output.done(IDS_FILE, ids);
  return survey;
}

function buildData(ctx: BuildContext, spec: ReturnType<typeof parseFactory>): Promise<BuiltData> {
  switch (spec.kind) {
    case 'flat':
      return streamFlat(ctx, spec);
    case 'hnsw':
      return streamHnsw(ctx, spec);
    case 'ivf-flat':
    case 'ivf-pq':
      return streamIvf(ctx, spec);
  }
}
