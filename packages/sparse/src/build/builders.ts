/**
 * The two ways irserve-build-sparse-index builds, behind one interface: in bounded memory (runs
 * spilled to disk and merged; the default) or all in memory, which clustering passages
 * (`--reorder cluster`) needs, refused as soon as it would pass the memory budget.
 */
import { formatBytes } from 'irserve/plugin';
import type { PassageVector } from '../corpus/parse-record.js';
import { BoundedIndexBuilder } from '../index/bounded-builder.js';
import { SparseIndexBuilder } from '../index/index-builder.js';
import type { SparseManifest } from '../index/manifest.js';
import type { PassageIdRule } from '../index/passage-docs.js';
import { DEFAULT_REORDER } from '../index/reorder.js';
import { checkOutput, writeIndex } from '../index/write-index.js';

export interface IndexBuilding {
  readonly passages: number;
  /** Runs written to disk so far. */
  readonly spills: number;
  /** Seconds spent clustering passages (0 without). */
  readonly reorderSeconds: number;
  add(passage: PassageVector): void | Promise<void>;
  finish(build: Record<string, unknown>): Promise<SparseManifest>;
  abort(): Promise<void>;
}

export interface BuildingOptions {
  outputDir: string;
  quantization: number;
  blockSize: number;
  passageIds: PassageIdRule;
  reorder: boolean;
  impactOrdered: boolean;
  memoryBudget: number;
  log: (line: string) => void;
  warn: (line: string) => void;
}

/** The builder the options call for. */
export async function startBuilding(options: BuildingOptions): Promise<IndexBuilding> {
  return options.reorder ? inMemory(options) : bounded(options);
}

async function bounded(options: BuildingOptions): Promise<IndexBuilding> {
  const builder = await BoundedIndexBuilder.create({
    ...options,
    onSpill: ({ run, postings, passages, seconds }) =>
      options.log(
        `run ${run} written: ${passages} passages, ${postings} postings (${seconds.toFixed(1)} s); the memory budget is ${formatBytes(options.memoryBudget)}`,
      ),
    onWarning: options.warn,
  });
  return {
    get passages() {
      return builder.passages;
    },
    get spills() {
      return builder.runFiles.length;
    },
    reorderSeconds: 0,
    add: (passage) => builder.add(passage),
    finish: (build) => builder.finish(build),
    abort: () => builder.abort(),
  };
}

/** Bytes an in-memory build holds per posting at its peak (forward, inverted, blocks, copies). */
const IN_MEMORY_BYTES_PER_POSTING = 32;
const BYTES_PER_ID = 120;

async function inMemory(options: BuildingOptions): Promise<IndexBuilding> {
  await checkOutput(options.outputDir);
  const builder = new SparseIndexBuilder({
    ...options,
    reorder: DEFAULT_REORDER,
  });
  let postings = 0;
  return {
    get passages() {
      return builder.passages;
    },
    spills: 0,
    get reorderSeconds() {
      return builder.reorderSeconds;
    },
    add(passage) {
      builder.add(passage);
      postings += passage.tokens.length;
      const need = postings * IN_MEMORY_BYTES_PER_POSTING + builder.passages * BYTES_PER_ID;
      if (need > options.memoryBudget)
        throw new Error(
          `--reorder cluster builds the whole index in memory, about ${formatBytes(need)} for the first ${builder.passages} passages, over the memory budget of ${formatBytes(options.memoryBudget)}: raise --memory_budget, or build without --reorder (in bounded memory)`,
        );
    },
    finish: (build) =>
      writeIndex(builder.finish(), options.outputDir, { passageIds: options.passageIds, build }),
    abort: () => Promise.resolve(),
  };
}
