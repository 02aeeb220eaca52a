/**
 * `irserve-build-plaid-index <embeddings_dir> <output_dir> [--nbits 2] [--partitions N]
 * [--kmeans_iterations 4] [--sample_passages N] [--seed 123]`
 *
 * Every error is one line on stderr and exit code 1 (2 for usage errors), never a stack trace.
 */
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultIo, isEntryPoint, type CliIo } from 'irserve/plugin';
import { buildPlaidIndex, type BuildPlaidOptions, type BuildPlaidReport } from './build-plaid.js';
import { fileShards } from './token-shards.js';

export const USAGE = `usage: irserve-build-plaid-index <embeddings_dir> <output_dir> [options]

  <embeddings_dir>        .npz or pickled-dict .npy shards, each with "features" (one row
                          per token), "doclens" (tokens per passage) and "ids" (one per passage)
  <output_dir>            new or empty directory for the index (.npy layout)
  --nbits N               bits per residual dimension: 1, 2 (default) or 4
  --partitions N          centroids (default ColBERT's 2^floor(log2(16 * sqrt(tokens))))
  --kmeans_iterations N   k-means iterations (default 4, as ColBERT)
  --sample_passages N     passages sampled to train (default 16 * sqrt(120 * passages))
  --seed N                sampling and k-means seed (default 123)
  -h, --help              this text`;

class UsageError extends Error {}

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < 0)
    throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

type Parsed = Omit<BuildPlaidOptions, 'source'> & { inputDir: string };

/** Parses argv (without node and script); throws UsageError. */
export function parseCliArgs(argv: string[]): Parsed | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        nbits: { type: 'string', default: '2' },
        partitions: { type: 'string' },
        kmeans_iterations: { type: 'string' },
        sample_passages: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) return 'help';
  if (positionals.length !== 2)
    throw new UsageError(
      `expected <embeddings_dir> and <output_dir>, got ${positionals.length} arguments`,
    );
  const nbits = positiveInt('nbits', v.nbits);
  if (nbits !== 1 && nbits !== 2 && nbits !== 4)
    throw new UsageError(`--nbits must be 1, 2 or 4, got ${v.nbits}`);
  const options: Parsed = { inputDir: positionals[0]!, outputDir: positionals[1]!, nbits };
  const partitions = positiveInt('partitions', v.partitions);
  const iterations = positiveInt('kmeans_iterations', v.kmeans_iterations);
  const sample = positiveInt('sample_passages', v.sample_passages);
  const seed = positiveInt('seed', v.seed);
  if (partitions !== undefined) options.partitions = partitions;
  if (iterations !== undefined) options.kmeansIterations = iterations;
  if (sample !== undefined) options.samplePassages = sample;
  if (seed !== undefined) options.seed = seed;
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
    `built a PLAID index (nbits ${r.nbits}, ${r.partitions} centroids) over ${r.passages} passages, ` +
    `${r.embeddings} tokens of dim ${r.dim}, in ${r.seconds.toFixed(1)}s: ${r.outputDir}, ` +
    `${(r.indexBytes / 2 ** 20).toFixed(1)} MiB`
  );
}

/** Runs the builder; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let options;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    io.err(`irserve-build-plaid-index: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    const { inputDir, ...rest } = options;
    const source = fileShards(await listTokenShards(inputDir));
    const logger = { info: (line: string) => io.err(line) };
    io.out(
      summary(
        await buildPlaidIndex({ ...rest, source, logger, interactive: io.interactive ?? false }),
      ),
    );
    return 0;
  } catch (error) {
    io.err(`irserve-build-plaid-index: ${(error as Error).message}`);
    return 1;
  }
}

if (
  isEntryPoint(import.meta.url, new URL('../../bin/irserve-build-plaid-index.js', import.meta.url))
) {
  process.exitCode = await main(process.argv.slice(2));
}
