/** What every streamed build step shares: the input, the options in force, the output. */
import type { Progress } from 'irserve';
import type { Manifest } from '../vector-index/manifest.js';
import type { TrainOptions } from '../vector-index/train-options.js';
import type { Metric } from '../vector-index/types.js';
import type { IndexOutput } from './index-output.js';
import type { Survey, VectorShards } from './shard-passes.js';

export interface BuildContext {
  shards: VectorShards;
  survey: Survey;
  metric: Metric;
  /** Sampling, seeds, k-means, HNSW and IVF settings, with defaults applied. */
  train: TrainOptions;
  /** Threads for encoding and searches (at least 1). */
  threads: number;
  /** Bytes the build may hold in memory for its own data. */
  memoryBudget: number;
  output: IndexOutput;
  /** A progress bar (or log lines) for one phase. */
  bar(label: string, total: number, unit: string): Progress;
  /** Train IVF / PQ on a GPU (see gpu-training.ts). */
  useGpu?: { providers: string[] | undefined; log: (line: string) => void };
}

/** What a step wrote, for the manifest. */
export interface BuiltData {
  kind: Manifest['kind'];
  params: Manifest['params'];
  /** Sorted runs spilled to disk (IVF builds past their budget). */
  runs?: number;
}

/** Chunks of vectors in flight per thread: one being encoded, one waiting. */
export const IN_FLIGHT_PER_THREAD = 2;

/** Below this many vectors a build encodes on its own thread rather than wait for threads to start. */
const SMALLEST_SHARED_CHUNK = 1024;

/**
 * Vectors per chunk: at most `most`, and few enough that every thread gets a chunk, but never
 * under `SMALLEST_SHARED_CHUNK` (so a small corpus is one chunk, encoded without threads).
 */
export function chunkRowsFor(count: number, threads: number, most: number): number {
  return Math.min(most, Math.max(SMALLEST_SHARED_CHUNK, Math.ceil(count / threads)));
}
