/**
 * Builds a sparse index from an encoded corpus: read (with a progress bar over the input
 * bytes), index within the memory budget (runs spilled to disk and merged; or, to cluster
 * passages, all in memory), write atomically, and report counts, timings and peak memory.
 */
import { availableParallelism, totalmem } from 'node:os';
import { createProgress, type Progress, type ProgressLogger } from 'irserve';
import { listInputFiles, type InputFile } from '../corpus/input-files.js';
import { readCorpusParallel } from '../corpus/parallel-read.js';
import type { PassageVector } from '../corpus/parse-record.js';
import { readCorpus } from '../corpus/read-corpus.js';
import type { SparseManifest } from '../index/manifest.js';
import type { PassageIdRule } from '../index/passage-docs.js';
import { startBuilding, type IndexBuilding } from './builders.js';

export interface BuildSparseOptions {
  input: string;
  outputDir: string;
  /** `impact = trunc(weight * quantization)`; 0: float impacts. Default 50 (RoutIR's). */
  quantization?: number;
  blockSize?: number;
  passageIds?: PassageIdRule;
  maxConsecutiveBad?: number;
  /** Cluster passages so that similar ones share blocks (default false: corpus order). */
  reorder?: boolean;
  /**
   * Add the impact-ordered lists that `search: impact-ordered` (and `auto`) read; about 40% more
   * index on disk and in memory. Default false.
   */
  impactOrdered?: boolean;
  /**
   * Parser threads (default: the cores of the machine, 1 for a corpus under 8 MiB; 1 parses in
   * this thread).
   */
  threads?: number;
  /**
   * Bytes the build may hold in memory (default `defaultMemoryBudget()`, a quarter of the
   * machine's): past it, runs of postings go to disk and are merged at the end. Clustering
   * (`reorder`) holds the whole index in memory and is refused when it would pass it.
   */
  memoryBudget?: number;
  /** Bytes of corpus text per batch sent to a parser thread (tests make it small). */
  batchBytes?: number;
  logger: ProgressLogger & { warn?(message: string): void };
  interactive?: boolean;
}

export interface BuildSparseReport {
  manifest: SparseManifest;
  outputDir: string;
  badLines: number;
  seconds: number;
  /** Of `seconds`, the time spent clustering passages. */
  reorderSeconds: number;
  threads: number;
  memoryBudget: number;
  /** Runs written to disk (0: the index fitted the budget). */
  spills: number;
  indexBytes: number;
  peakRssBytes: number;
}

export const DEFAULT_QUANTIZATION = 50;
export const DEFAULT_BLOCK_SIZE = 32;
/** Bad lines reported one by one; later ones are only counted. */
const REPORTED_BAD_LINES = 20;

/**
 * A quarter of the machine's memory, at least 256 MiB: what a build may hold by default.
 *
 * @example defaultMemoryBudget() // 6442450944 on a 24 GiB machine
 */
export function defaultMemoryBudget(): number {
  return Math.max(256 << 20, Math.floor(totalmem() / 4));
}

/** Below this many bytes of input, starting parser threads costs more than they save. */
const PARALLEL_INPUT_BYTES = 8 << 20;

/** The cores there are, or 1 for a small corpus. */
function defaultThreads(files: InputFile[]): number {
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  return bytes < PARALLEL_INPUT_BYTES ? 1 : availableParallelism();
}

/**
 * Builds the index of `options.input` into `options.outputDir`.
 *
 * @example await buildSparseIndex({ input: 'corpus.jsonl.gz', outputDir: 'idx', logger: console });
 */
export async function buildSparseIndex(options: BuildSparseOptions): Promise<BuildSparseReport> {
  const started = performance.now();
  const quantization = options.quantization ?? DEFAULT_QUANTIZATION;
  const passageIds = options.passageIds ?? 'auto';
  const memoryBudget = options.memoryBudget ?? defaultMemoryBudget();
  const files = await listInputFiles(options.input);
  const threads = options.threads ?? defaultThreads(files);
  const builder = await startBuilding({
    outputDir: options.outputDir,
    quantization,
    blockSize: options.blockSize ?? DEFAULT_BLOCK_SIZE,
    passageIds,
    reorder: options.reorder === true,
    impactOrdered: options.impactOrdered === true,
    memoryBudget,
    log: (line) => options.logger.info(line),
    warn: (line) => (options.logger.warn ?? options.logger.info)(line),
  });
  let manifest: SparseManifest;
  let badLines: number;
  try {
    badLines = await readIntoBuilder(files, builder, createByteProgress(files, options), {
      ...options,
      quantization,
      threads,
    });
    if (builder.passages === 0) throw new Error(`${options.input}: no passage could be indexed`);
    options.logger.info(`writing ${builder.passages} passages to ${options.outputDir}`);
    manifest = await builder.finish({
      input: options.input,
      files: files.length,
      badLines,
      reorder: options.reorder === true ? 'cluster' : 'none',
      impactOrdered: options.impactOrdered === true,
    });
  } catch (error) {
    await builder.abort();
    throw error;
  }
  const indexBytes = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
  return {
    manifest,
    outputDir: options.outputDir,
    badLines,
    seconds: (performance.now() - started) / 1000,
    reorderSeconds: builder.reorderSeconds,
    threads,
    memoryBudget,
    spills: builder.spills,
    indexBytes,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/** A progress bar (or log lines, with the time left) over the bytes of every input file. */
function createByteProgress(files: InputFile[], options: BuildSparseOptions): Progress {
  return createProgress({
    label: 'indexing',
    total: files.reduce((sum, file) => sum + file.bytes, 0),
    unit: 'bytes',
    interactive: options.interactive ?? false,
    logger: options.logger,
  });
}

/**
 * Reads every passage of `files` into `builder`, in this thread or in parser threads, and
 * returns the number of bad lines skipped; the progress is closed even when reading fails.
 */
async function readIntoBuilder(
  files: InputFile[],
  builder: IndexBuilding,
  progress: Progress,
  options: BuildSparseOptions & { quantization: number; threads: number },
): Promise<number> {
  let badLines = 0;
  const onBadLine = (message: string) => {
    if (++badLines <= REPORTED_BAD_LINES)
      (options.logger.warn ?? options.logger.info)(`skipped ${message}`);
  };
  try {
    const reading = {
      quantization: options.quantization,
      maxConsecutiveBad: options.maxConsecutiveBad,
      onBadLine,
      onBytes: (n: number) => progress.tick(n),
      onPassage: (passage: PassageVector) => builder.add(passage),
    };
    await (options.threads > 1
      ? readCorpusParallel(files, reading, options.threads, options.batchBytes)
      : readCorpus(files, reading));
  } finally {
    progress.done();
  }
  return badLines;
}
