/**
 * `irserve-build-index <input_dir> <output_dir> [--index_string S] [--use_gpu]
 * [--sampling_rate F] [--seed N] [--metric ip|l2] [--threads N] [--ef_construction N]
 * [--ef_search N] [--nprobe N] [--kmeans_iterations N]`
 *
 * Flags are the spec's (RoutIR's `faiss_indexing.py`) with their defaults; every error is one
 * line on stderr and exit code 1 (2 for usage errors), never a stack trace.
 */
import { parseArgs } from 'node:util';
import { defaultIo, isEntryPoint, type CliIo } from 'irserve/plugin';
import { SUPPORTED_FACTORIES } from '../vector-index/factory.js';
import { buildIndex, type BuildIndexOptions, type BuildReport } from './build-index.js';

export const USAGE = `usage: irserve-build-index <input_dir> <output_dir> [options]

  --index_string S      index factory string (default Flat); one of
                        ${SUPPORTED_FACTORIES.join(', ')}
  --sampling_rate F     fraction of vectors that trains IVF/PQ, in (0, 1] (default 0.25)
  --seed N              sampling and k-means seed (default 0)
  --metric ip|l2        inner product (default) or L2
  --threads N           threads for usearch (default 0: all cores)
  --ef_construction N   HNSW build breadth (default 40, as faiss)
  --ef_search N         HNSW search breadth stored in the index (default 16, as faiss)
  --nprobe N            IVF lists scanned per query by default (default 1, as faiss)
  --kmeans_iterations N k-means iterations (default 25, as faiss)
  --use_gpu             train IVF/PQ on a GPU (CUDA, else WebGPU) with @irserve/gpu;
                        an error when none is usable
  -h, --help            this text`;

export type { CliIo };

class UsageError extends Error {}

function toNumber(name: string, raw: string | undefined, integer: boolean): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new UsageError(
      `--${name} must be ${integer ? 'an integer' : 'a number'}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** Parses argv (without node and script) into build options; throws UsageError. */
export function parseCliArgs(argv: string[]): BuildIndexOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        index_string: { type: 'string', default: 'Flat' },
        sampling_rate: { type: 'string', default: '0.25' },
        seed: { type: 'string', default: '0' },
        metric: { type: 'string', default: 'ip' },
        threads: { type: 'string' },
        ef_construction: { type: 'string' },
        ef_search: { type: 'string' },
        nprobe: { type: 'string' },
        kmeans_iterations: { type: 'string' },
        use_gpu: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) return 'help';
  if (positionals.length !== 2) {
    throw new UsageError(
      `expected <input_dir> and <output_dir>, got ${positionals.length} arguments`,
    );
  }
  if (v.metric !== 'ip' && v.metric !== 'l2')
    throw new UsageError(`--metric must be ip or l2, got ${v.metric}`);
  return {
    inputDir: positionals[0]!,
    outputDir: positionals[1]!,
    indexString: v.index_string,
    samplingRate: toNumber('sampling_rate', v.sampling_rate, false),
    seed: toNumber('seed', v.seed, true),
    metric: v.metric,
    useGpu: v.use_gpu,
    threads: toNumber('threads', v.threads, true),
    efConstruction: toNumber('ef_construction', v.ef_construction, true),
    efSearch: toNumber('ef_search', v.ef_search, true),
    nprobe: toNumber('nprobe', v.nprobe, true),
    kmeansIterations: toNumber('kmeans_iterations', v.kmeans_iterations, true),
  };
}

function summary(r: BuildReport): string {
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return (
    `built ${r.factory} (${r.metric}) over ${r.count} vectors of dim ${r.dim} in ` +
    `${r.seconds.toFixed(1)}s: ${r.outputDir}, ${mib(r.indexBytes)} on disk, peak RSS ${mib(r.peakRssBytes)}`
  );
}

/** Runs the builder; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let options;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    io.err(`irserve-build-index: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    const logger = { info: (line: string) => io.err(line) };
    const interactive = io.interactive ?? false;
    io.out(summary(await buildIndex({ ...options, logger, interactive })));
    return 0;
  } catch (error) {
    io.err(`irserve-build-index: ${(error as Error).message}`);
    return 1;
  }
}

if (isEntryPoint(import.meta.url, new URL('../../bin/irserve-build-index.js', import.meta.url))) {
  process.exitCode = await main(process.argv.slice(2));
}
