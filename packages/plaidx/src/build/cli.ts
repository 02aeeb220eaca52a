/**
 * `irserve-build-plaid-index <embeddings_dir> <output_dir> [options]`: parsing, `--help`,
 * errors and exit codes are irserve's command-line kit's.
 */
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  commonFlags,
  flag,
  formatBytes,
  isEntryPoint,
  runCommand,
  type CliIo,
  type CommandSpec,
  type FlagValues,
  UsageError,
} from 'irserve/plugin';
import { buildPlaidIndex, type BuildPlaidOptions, type BuildPlaidReport } from './build-plaid.js';
import { fileShards } from './token-shards.js';

const FLAGS = {
  nbits: flag.choice(['1', '2', '4'], {
    placeholder: 'N',
    default: '2',
    help: 'bits per residual dimension: 1, 2 (default) or 4',
  }),
  partitions: flag.integer({
    help: "centroids (default ColBERT's 2^floor(log2(16 * sqrt(tokens))))",
  }),
  kmeans_iterations: flag.integer({ help: 'k-means iterations (default 4, as ColBERT)' }),
  sample_passages: flag.integer({
    help: 'passages sampled to train (default 16 * sqrt(120 * passages))',
  }),
  seed: commonFlags.seed({ help: 'sampling and k-means seed (default 123)' }),
  threads: commonFlags.threads({
    min: 1,
    max: 256,
    help: 'threads for k-means and the centroid assignment (default: the cores there\nare); the index is the same with any number',
  }),
  centroid_graph: flag.integer({
    placeholder: 'M',
    min: 2,
    max: 512,
    help: 'assign tokens to centroids (k-means, encoding) through an HNSW graph over\nthe centroids with M links each (e.g. 32, as IVF<n>_HNSW32 does for dense\nindexes) instead of comparing each with every centroid: about 2-3x faster\nat thousands of centroids; a few percent of tokens get a near, not the\nnearest, centroid (default: exact, as ColBERT)',
  }),
  centroid_graph_ef: flag.integer({
    min: 1,
    max: 4096,
    help: 'search breadth of --centroid_graph (default 32): higher agrees more with\nexact assignment and is slower',
  }),
  memory_budget: commonFlags.memoryBudget({
    help: 'memory the build may hold (e.g. 8G; default half of RAM): one shard at a\ntime (at most half of it), the IVF from sorted runs written to disk and\nmerged; the index is the same as an in-memory build unless the training\nsample must be lowered to fit (a quarter of it; logged)',
  }),
};

/** `irserve-build-plaid-index`: its usage, arguments and flags. */
export const BUILD_PLAID_INDEX: CommandSpec<typeof FLAGS> = {
  name: 'irserve-build-plaid-index',
  usage: ['irserve-build-plaid-index <embeddings_dir> <output_dir> [options]'],
  positionals: [
    {
      name: '<embeddings_dir>',
      help: '.npz or pickled-dict .npy shards, each with "features" (one row\nper token), "doclens" (tokens per passage) and "ids" (one per passage)',
    },
    { name: '<output_dir>', help: 'new or empty directory for the index (.npy layout)' },
  ],
  flags: FLAGS,
};

type Parsed = Omit<BuildPlaidOptions, 'source'> & { inputDir: string };

/** The build options of a parsed command line (the shards still to list). */
export function buildOptions(
  flags: FlagValues<typeof FLAGS>,
  [inputDir, outputDir]: string[],
): Parsed {
  const options: Parsed = {
    inputDir: inputDir!,
    outputDir: outputDir!,
    nbits: Number(flags.nbits),
  };
  if (flags.partitions !== undefined) options.partitions = flags.partitions;
  if (flags.kmeans_iterations !== undefined) options.kmeansIterations = flags.kmeans_iterations;
  if (flags.sample_passages !== undefined) options.samplePassages = flags.sample_passages;
  if (flags.seed !== undefined) options.seed = flags.seed;
  if (flags.threads !== undefined) options.threads = flags.threads;
  if (flags.memory_budget !== undefined) options.memoryBudget = flags.memory_budget;
  if (flags.centroid_graph_ef !== undefined && flags.centroid_graph === undefined)
    throw new UsageError('--centroid_graph_ef needs --centroid_graph M');
  if (flags.centroid_graph !== undefined)
    options.centroidGraph = {
      m: flags.centroid_graph,
      ...(flags.centroid_graph_ef !== undefined ? { efSearch: flags.centroid_graph_ef } : {}),
    };
  return options;
}

/** The shard files of `dir`, sorted by name. */
export async function listTokenShards(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: Error) => {
    throw new Error(`cannot list ${dir}: ${error.message}`);
  });
  const names = entries
    .filter((e) => !e.isDirectory() && ['.npy', '.npz'].includes(extname(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort();
  if (names.length === 0) throw new Error(`${dir}: no .npy or .npz shards`);
  return names.map((name) => join(dir, name));
}

function summary(r: BuildPlaidReport): string {
  return (
    `built a PLAID index (nbits ${r.nbits}, ${r.partitions} centroids${r.centroidAssignment === 'exact' ? '' : `, assigned by ${r.centroidAssignment}`}) over ${r.passages} passages, ` +
    `${r.embeddings} tokens of dim ${r.dim}, in ${r.seconds.toFixed(1)}s (training ${r.trainingSeconds.toFixed(1)}s, encoding ${r.encodingSeconds.toFixed(1)}s): ${r.outputDir}, ` +
    `${(r.indexBytes / 2 ** 20).toFixed(1)} MiB, peak RSS ${formatBytes(process.resourceUsage().maxRSS * 1024)} ` +
    `(${r.threads} threads, memory budget ${formatBytes(r.memoryBudget)}, ${r.spills} IVF runs written to disk)`
  );
}

/** Runs the builder; resolves to the exit code. */
export function main(argv: string[], io?: CliIo): Promise<number> {
  return runCommand(
    BUILD_PLAID_INDEX,
    argv,
    async ({ flags, positionals, io }) => {
      const { inputDir, ...rest } = buildOptions(flags, positionals);
      const source = fileShards(await listTokenShards(inputDir));
      const logger = { info: (line: string) => io.err(line) };
      const interactive = io.interactive ?? false;
      io.out(summary(await buildPlaidIndex({ ...rest, source, logger, interactive })));
    },
    io && { io },
  );
}

if (
  isEntryPoint(import.meta.url, new URL('../../bin/irserve-build-plaid-index.js', import.meta.url))
) {
  process.exitCode = await main(process.argv.slice(2));
}
