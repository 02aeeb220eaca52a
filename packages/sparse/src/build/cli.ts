/**
 * `irserve-build-sparse-index <input> <output_dir> [--quantization 50] [--block_size 32]
 * [--passage_ids auto|colons|none] [--max_bad_lines 10] [--threads N] [--reorder none|cluster]
 * [--impact_ordered]`
 *
 * Every error is one line on stderr and exit code 1 (2 for usage errors), never a stack trace.
 */
import { parseArgs } from 'node:util';
import { defaultIo, isEntryPoint, type CliIo } from 'irserve/plugin';
import { PASSAGE_ID_RULES, type PassageIdRule } from '../index/passage-docs.js';
import {
  DEFAULT_BLOCK_SIZE,
  DEFAULT_QUANTIZATION,
  buildSparseIndex,
  type BuildSparseOptions,
  type BuildSparseReport,
} from './build-index.js';

export const USAGE = `usage: irserve-build-sparse-index <input> <output_dir> [options]

  <input>               an encoded corpus: a .jsonl or .jsonl.gz file of
                        {"id": ..., "vector": {"token": weight, ...}} lines, or a directory of them
  --quantization N      impact = trunc(weight * N) (default ${DEFAULT_QUANTIZATION}, as RoutIR/Anserini);
                        1 for a corpus of integer weights; 0 keeps float weights
  --block_size N        passages per block of the block-max lists (default ${DEFAULT_BLOCK_SIZE})
  --passage_ids RULE    how passage ids name documents for MaxP: auto (doc::psgN and doc_N
                        are passages of doc; default), colons (only doc::psgN), none
  --max_bad_lines N     stop after more than N consecutive bad lines (default 10)
  --threads N           parse the corpus on N worker threads (default 1); the index is
                        byte-identical to a one-thread build
  --reorder cluster     cluster similar passages into the same blocks (default none: corpus
                        order); ties between equal scores then follow the new order
  --impact_ordered      also write impact-ordered lists, which search: impact-ordered (and
                        auto) need; about 40% more index (default: without them)
  -h, --help            this text`;

class UsageError extends Error {}

function integer(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(value) || value < min || value > max)
    throw new UsageError(
      `--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  return value;
}

type CliOptions = Omit<BuildSparseOptions, 'logger' | 'interactive'>;

/** Parses argv (without node and script); throws UsageError. */
export function parseCliArgs(argv: string[]): CliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        quantization: { type: 'string', default: String(DEFAULT_QUANTIZATION) },
        block_size: { type: 'string', default: String(DEFAULT_BLOCK_SIZE) },
        passage_ids: { type: 'string', default: 'auto' },
        max_bad_lines: { type: 'string', default: '10' },
        threads: { type: 'string', default: '1' },
        reorder: { type: 'string', default: 'none' },
        impact_ordered: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) return 'help';
  if (positionals.length !== 2)
    throw new UsageError(`expected <input> and <output_dir>, got ${positionals.length} arguments`);
  if (!(PASSAGE_ID_RULES as readonly string[]).includes(v.passage_ids))
    throw new UsageError(`--passage_ids must be one of ${PASSAGE_ID_RULES.join(', ')}`);
  if (v.reorder !== 'none' && v.reorder !== 'cluster')
    throw new UsageError(`--reorder must be none or cluster, got ${JSON.stringify(v.reorder)}`);
  return {
    input: positionals[0]!,
    threads: integer('threads', v.threads, 1, 256),
    reorder: v.reorder === 'cluster',
    impactOrdered: v.impact_ordered,
    outputDir: positionals[1]!,
    quantization: integer('quantization', v.quantization, 0, 1_000_000),
    blockSize: integer('block_size', v.block_size, 1, 65_536),
    passageIds: v.passage_ids as PassageIdRule,
    maxConsecutiveBad: integer('max_bad_lines', v.max_bad_lines, 0, 1_000_000),
  };
}

function summary(r: BuildSparseReport): string {
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const m = r.manifest;
  return (
    `indexed ${m.passages} passages (${m.documents} documents, ${m.postings} postings, ` +
    `${m.vocabularySize} terms, quantization ${m.quantization || 'none (float)'}) in ` +
    `${r.seconds.toFixed(1)}s: ${r.outputDir}, ${mib(r.indexBytes)} on disk, peak RSS ${mib(r.peakRssBytes)}` +
    (r.badLines > 0 ? `; skipped ${r.badLines} bad lines` : '')
  );
}

/** Runs the builder; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let options;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    io.err(`irserve-build-sparse-index: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    const logger = { info: (line: string) => io.err(line), warn: (line: string) => io.err(line) };
    io.out(
      summary(await buildSparseIndex({ ...options, logger, interactive: io.interactive ?? false })),
    );
    return 0;
  } catch (error) {
    io.err(`irserve-build-sparse-index: ${(error as Error).message}`);
    return 1;
  }
}

if (
  isEntryPoint(import.meta.url, new URL('../../bin/irserve-build-sparse-index.js', import.meta.url))
) {
  process.exitCode = await main(process.argv.slice(2));
}
