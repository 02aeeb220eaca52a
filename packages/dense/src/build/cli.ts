/**
 * `irserve-build-index <input_dir> <output_dir> [options]`. Flags are the specification's
 * (RoutIR's `faiss_indexing.py`) with their defaults; parsing, `--help`, errors and exit codes
 * are irserve's command-line kit's.
 */
import {
  commonFlags,
  flag,
  isEntryPoint,
  runCommand,
  type CommandSpec,
  type CliIo,
  type FlagValues,
} from 'irserve/plugin';
import { SUPPORTED_FACTORIES } from '../vector-index/factory.js';
import { buildIndex, type BuildIndexOptions, type BuildReport } from './build-index.js';
import { formatBytes } from './memory-budget.js';

const FLAGS = {
  index_string: flag.string({
    placeholder: 'S',
    default: 'Flat',
    help: `index factory string (default Flat); one of\n${SUPPORTED_FACTORIES.join(', ')}`,
  }),
  sampling_rate: flag.number({
    placeholder: 'F',
    default: 0.25,
    help: 'fraction of vectors that trains IVF/PQ, in (0, 1] (default 0.25)',
  }),
  seed: commonFlags.seed({ default: 0, help: 'sampling and k-means seed (default 0)' }),
  metric: flag.choice(['ip', 'l2'], { default: 'ip', help: 'inner product (default) or L2' }),
  threads: commonFlags.threads({
    help: 'threads for encoding, k-means and HNSW (default 0: every core)',
  }),
  memory_budget: commonFlags.memoryBudget({
    help: "memory the build may hold, e.g. 6G (default: half the machine's);\nlarger IVF builds spill sorted runs to disk and merge them",
  }),
  ef_construction: flag.integer({ help: 'HNSW build breadth (default 40, as faiss)' }),
  ef_search: flag.integer({
    help: 'HNSW search breadth stored in the index (default 16, as faiss)',
  }),
  nprobe: flag.integer({ help: 'IVF lists scanned per query by default (default 1, as faiss)' }),
  kmeans_iterations: flag.integer({ help: 'k-means iterations (default 25, as faiss)' }),
  use_gpu: flag.switch({
    help: 'train IVF/PQ on a GPU (CUDA, else WebGPU) with @irserve/gpu;\nan error when none is usable',
  }),
};

/** `irserve-build-index`: its usage, arguments and flags. */
export const BUILD_INDEX: CommandSpec<typeof FLAGS> = {
  name: 'irserve-build-index',
  usage: ['irserve-build-index <input_dir> <output_dir> [options]'],
  description:
    "Builds a vector index from the .npy/.npz shards of <input_dir> (RoutIR's layout) into <output_dir>.",
  positionals: [{ name: '<input_dir>' }, { name: '<output_dir>' }],
  flags: FLAGS,
};

/** The build options of a parsed command line. */
export function buildOptions(
  flags: FlagValues<typeof FLAGS>,
  [inputDir, outputDir]: string[],
): BuildIndexOptions {
  return {
    inputDir: inputDir!,
    outputDir: outputDir!,
    indexString: flags.index_string,
    samplingRate: flags.sampling_rate,
    seed: flags.seed,
    metric: flags.metric,
    useGpu: flags.use_gpu ?? false,
    threads: flags.threads,
    memoryBudget: flags.memory_budget,
    efConstruction: flags.ef_construction,
    efSearch: flags.ef_search,
    nprobe: flags.nprobe,
    kmeansIterations: flags.kmeans_iterations,
  };
}

function summary(r: BuildReport): string {
  const runs = r.runs ? `, ${r.runs} runs spilled to disk` : '';
  return (
    `built ${r.factory} (${r.metric}) over ${r.count} vectors of dim ${r.dim} in ` +
    `${r.seconds.toFixed(1)}s on ${r.threads} threads: ${r.outputDir}, ` +
    `${formatBytes(r.indexBytes)} on disk, peak RSS ${formatBytes(r.peakRssBytes)} ` +
    `(budget ${formatBytes(r.memoryBudget)}${runs})`
  );
}

/** Runs the builder; resolves to the exit code. */
export function main(argv: string[], io?: CliIo): Promise<number> {
  return runCommand(
    BUILD_INDEX,
    argv,
    async ({ flags, positionals, io }) => {
      const logger = { info: (line: string) => io.err(line) };
      const interactive = io.interactive ?? false;
      const report = await buildIndex({
        ...buildOptions(flags, positionals),
        logger,
        interactive,
      });
      io.out(summary(report));
    },
    io && { io },
  );
}

if (isEntryPoint(import.meta.url, new URL('../../bin/irserve-build-index.js', import.meta.url))) {
  process.exitCode = await main(process.argv.slice(2));
}
