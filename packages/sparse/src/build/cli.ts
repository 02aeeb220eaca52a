/**
 * `irserve-build-sparse-index <input> <output_dir> [options]`: parsing, `--help`, errors and
 * exit codes are irserve's command-line kit's.
 */
import {
  commonFlags,
  flag,
  isEntryPoint,
  runCommand,
  type CliIo,
  type CommandSpec,
  type FlagValues,
} from 'irserve/plugin';
import { PASSAGE_ID_RULES } from '../index/passage-docs.js';
import {
  DEFAULT_BLOCK_SIZE,
  DEFAULT_QUANTIZATION,
  buildSparseIndex,
  type BuildSparseOptions,
  type BuildSparseReport,
} from './build-index.js';

const FLAGS = {
  quantization: flag.integer({
    max: 1_000_000,
    default: DEFAULT_QUANTIZATION,
    help: `impact = trunc(weight * N) (default ${DEFAULT_QUANTIZATION}, as RoutIR/Anserini);\n1 for a corpus of integer weights; 0 keeps float weights`,
  }),
  block_size: flag.integer({
    min: 1,
    max: 65_536,
    default: DEFAULT_BLOCK_SIZE,
    help: `passages per block of the block-max lists (default ${DEFAULT_BLOCK_SIZE})`,
  }),
  passage_ids: flag.choice(PASSAGE_ID_RULES, {
    placeholder: 'RULE',
    default: 'auto',
    help: 'how passage ids name documents for MaxP: auto (doc::psgN and doc_N\nare passages of doc; default), colons (only doc::psgN), none',
  }),
  max_bad_lines: flag.integer({
    max: 1_000_000,
    default: 10,
    help: 'stop after more than N consecutive bad lines (default 10)',
  }),
  threads: commonFlags.threads({
    min: 1,
    max: 256,
    help: 'parse the corpus on N worker threads (default: the cores there are, 1 for a\ncorpus under 8 MiB); the index is byte-identical to a one-thread build',
  }),
  memory_budget: commonFlags.memoryBudget({
    help: 'memory the build may hold (e.g. 8G; default a quarter of RAM): past it,\nruns of postings are written to disk and merged; the index is the same',
  }),
  reorder: flag.choice(['none', 'cluster'], {
    default: 'none',
    help: 'none (default: corpus order), or cluster: similar passages into the\nsame blocks (ties between equal scores then follow the new order)',
  }),
  impact_ordered: flag.switch({
    default: false,
    help: 'also write impact-ordered lists, which search: impact-ordered (and\nauto) need; about 40% more index (default: without them)',
  }),
};

/** `irserve-build-sparse-index`: its usage, arguments and flags. */
export const BUILD_SPARSE_INDEX: CommandSpec<typeof FLAGS> = {
  name: 'irserve-build-sparse-index',
  usage: ['irserve-build-sparse-index <input> <output_dir> [options]'],
  positionals: [
    {
      name: '<input>',
      help: 'an encoded corpus: a .jsonl or .jsonl.gz file of\n{"id": ..., "vector": {"token": weight, ...}} lines, or a directory of them',
    },
    { name: '<output_dir>' },
  ],
  flags: FLAGS,
};

type CliOptions = Omit<BuildSparseOptions, 'logger' | 'interactive'>;

/** The build options of a parsed command line. */
export function buildOptions(
  flags: FlagValues<typeof FLAGS>,
  [input, outputDir]: string[],
): CliOptions {
  return {
    input: input!,
    outputDir: outputDir!,
    ...(flags.threads === undefined ? {} : { threads: flags.threads }),
    ...(flags.memory_budget === undefined ? {} : { memoryBudget: flags.memory_budget }),
    reorder: flags.reorder === 'cluster',
    impactOrdered: flags.impact_ordered,
    quantization: flags.quantization,
    blockSize: flags.block_size,
    passageIds: flags.passage_ids,
    maxConsecutiveBad: flags.max_bad_lines,
  };
}

function summary(r: BuildSparseReport): string {
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const m = r.manifest;
  return (
    `indexed ${m.passages} passages (${m.documents} documents, ${m.postings} postings, ` +
    `${m.vocabularySize} terms, quantization ${m.quantization || 'none (float)'}) in ` +
    `${r.seconds.toFixed(1)}s: ${r.outputDir}, ${mib(r.indexBytes)} on disk, peak RSS ${mib(r.peakRssBytes)} ` +
    `(${r.threads} threads, memory budget ${mib(r.memoryBudget)}, ${r.spills} runs written to disk)` +
    (r.badLines > 0 ? `; skipped ${r.badLines} bad lines` : '')
  );
}

/** Runs the builder; resolves to the exit code. */
export function main(argv: string[], io?: CliIo): Promise<number> {
  return runCommand(
    BUILD_SPARSE_INDEX,
    argv,
    async ({ flags, positionals, io }) => {
      const logger = { info: (line: string) => io.err(line), warn: (line: string) => io.err(line) };
      const interactive = io.interactive ?? false;
      const report = await buildSparseIndex({
        ...buildOptions(flags, positionals),
        logger,
        interactive,
      });
      io.out(summary(report));
    },
    io && { io },
  );
}

if (
  isEntryPoint(import.meta.url, new URL('../../bin/irserve-build-sparse-index.js', import.meta.url))
) {
  process.exitCode = await main(process.argv.slice(2));
}
