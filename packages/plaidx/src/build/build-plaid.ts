/**
 * Builds a PLAID index from token-embedding shards, as ColBERT's indexer does: sample
 * passages, train centroids and residual buckets, then encode every shard into one chunk of
 * codes and packed residuals, and invert the codes into the passage IVF. The output is the
 * `.npy` layout (next-plaid's file names) with `mapping.tsv` and a checksummed manifest.
 *
 * Memory stays under `memoryBudget` whatever the corpus size: one shard is in memory at a
 * time (at most half the budget), the training sample is lowered to a quarter of it when
 * ColBERT's would not fit, and the IVF is built from sorted runs spilled to disk (a quarter).
 * The index is written to a hidden folder beside the output and renamed into place at the end,
 * so a build that fails or is stopped leaves nothing that looks like an index.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { defaultMemoryBudget } from '@irserve/dense';
import { createProgress, type ProgressLogger } from 'irserve';
import { SUPPORTED_NBITS } from '../index/codec.js';
import {
  assignmentLabel,
  checkCentroidGraph,
  type CentroidGraphSettings,
} from './centroid-assignment.js';
import { encodeShards } from './encode-shards.js';
import { BYTES_PER_RUN_PAIR, IvfRuns } from './ivf-runs.js';
import type { ShardSource } from './token-shards.js';
import { countShards, trainOnSample, type TrainSettings } from './train-sample.js';
import { writeGlobals } from './write-globals.js';

export { defaultSizes } from './train-sample.js';

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
  /** Bytes the build may hold in memory (default half of the machine's memory). */
  memoryBudget?: number;
  /** Threads for k-means and the centroid assignment (default every core). */
  threads?: number;
  /**
   * Assign tokens to centroids (k-means, held-out tokens, encoding) through an HNSW graph over
   * the centroids with this M (and efSearch) instead of exactly: several times faster at
   * thousands of centroids, at a measured cost in agreement (docs/plaidx.md). Default exact.
   */
  centroidGraph?: CentroidGraphSettings;
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
  /** Of `seconds`: counting, sampling, k-means and the buckets (ColBERT's training). */
  trainingSeconds: number;
  /** Of `seconds`: assigning, compressing and writing every token, and the IVF runs. */
  encodingSeconds: number;
  indexBytes: number;
  memoryBudget: number;
  threads: number;
  /** How tokens were assigned to centroids: `exact` or `hnsw (M 32, efSearch 32)`. */
  centroidAssignment: string;
  /** IVF runs written to disk (0 when the pairs fit in memory). */
  spills: number;
}

/** Below this, the budget cannot hold a useful run or sample. */
const MIN_BUDGET = 64 * 1024;

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
  const memoryBudget = options.memoryBudget ?? defaultMemoryBudget();
  if (!(memoryBudget >= MIN_BUDGET))
    throw new Error(`--memory_budget must be at least ${MIN_BUDGET} bytes, got ${memoryBudget}`);
  const threads = options.threads ?? availableParallelism();
  const centroidGraph = options.centroidGraph && checkCentroidGraph(options.centroidGraph);
  await checkOutput(options.outputDir);
  const logger = options.logger ?? { info: () => {} };
  const bar = (label: string, total: number) =>
    createProgress({ label, total, interactive: options.interactive ?? false, logger });
  const settings: TrainSettings = {
    nbits,
    partitions: options.partitions,
    kmeansIterations: options.kmeansIterations ?? 4,
    samplePassages: options.samplePassages,
    seed: options.seed ?? 123,
    threads,
    centroidGraph,
    sampleBytes: memoryBudget / 4,
    shardBytes: memoryBudget / 2,
    log: (line) => logger.info(line),
  };
  const counts = await countShards(options.source, settings, bar('counting', options.source.count));
  if ((counts.dim * nbits) % 8 !== 0)
    throw new Error(`dimension ${counts.dim} times nbits ${nbits} must be a multiple of 8`);
  const codec = await trainOnSample(options.source, counts, settings, bar);
  const trained = performance.now();
  const partitions = codec.centroids.length / counts.dim;
  const temp = join(
    dirname(options.outputDir),
    `.${basename(options.outputDir)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  await mkdir(join(temp, 'spill'), { recursive: true });
  try {
    const ivf = new IvfRuns({
      partitions,
      // A passage adds at most one pair per token, so no run needs more than the corpus's tokens.
      runPairs: Math.min(
        counts.embeddings,
        Math.max(1024, Math.floor(memoryBudget / 4 / BYTES_PER_RUN_PAIR)),
      ),
      spillDir: join(temp, 'spill'),
      readBytes: Math.max(1 << 16, Math.min(1 << 24, memoryBudget / 16)),
      onSpill: (run, pairs) => logger.info(`IVF run ${run} written to disk (${pairs} pairs)`),
    });
    const encoded = await encodeShards(
      options.source,
      codec,
      temp,
      ivf,
      { dim: counts.dim, nbits, threads, shardBytes: settings.shardBytes, centroidGraph },
      bar('encoding', options.source.count),
    );
    const encodingSeconds = (performance.now() - trained) / 1000;
    const indexBytes = await writeGlobals(temp, codec, encoded, ivf, {
      nbits,
      dim: counts.dim,
      kmeansIterations: settings.kmeansIterations,
      centroidGraph,
    });
    await rm(join(temp, 'spill'), { recursive: true, force: true });
    await moveIntoPlace(temp, options.outputDir);
    return {
      outputDir: options.outputDir,
      passages: counts.passages,
      embeddings: counts.embeddings,
      dim: counts.dim,
      nbits,
      partitions,
      chunks: options.source.count,
      seconds: (performance.now() - started) / 1000,
      trainingSeconds: (trained - started) / 1000,
      encodingSeconds,
      indexBytes,
      memoryBudget,
      threads,
      spills: ivf.spills,
      centroidAssignment: assignmentLabel(centroidGraph) ?? 'exact',
    };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/** The output must be missing or an empty directory. */
async function checkOutput(dir: string): Promise<void> {
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
  await mkdir(dirname(dir), { recursive: true });
}

/** Renames the finished index onto `dir` (an empty directory there is replaced). */
async function moveIntoPlace(temp: string, dir: string): Promise<void> {
  await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw new Error(`cannot replace ${dir}: ${error.message}`);
  });
  await rename(temp, dir);
}
