/**
 * `irserve eval <config.json> --pipeline P --queries q.jsonl --qrels q.tsv [--collection C]
 * [--measures ...] [--run out.trec]`: runs every judged query through the pipeline of an
 * in-process app and prints its measures (trec_eval definitions). The pipeline is checked and
 * the run's folder created before the first query.
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError, type FlagValues } from '../cli-kit/index.js';
import { formatTrecRun } from '../eval/files.js';
import { parseMeasures, splitMeasureList, type MeasureSpec } from '../eval/measure-name.js';
import { evaluate, type Evaluation } from '../eval/metrics.js';
import { runJudged } from '../experiment/run-pipelines.js';
import type { CommandRun } from './command-run.js';
import { createCliLogger } from './logger.js';
import type { EVAL } from './usage.js';

/** A flag the command needs; a UsageError naming it when it is missing. */
export function required<T>(value: T | undefined, name: string): T {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** The measures of a `--measures` list; a UsageError naming the one that does not parse. */
export function measuresOption(text: string): MeasureSpec[] {
  try {
    return parseMeasures(splitMeasureList(text));
  } catch (error) {
    throw new UsageError(`--measures: ${(error as Error).message}`);
  }
}

/** The table printed at the end. */
export function formatEvaluation(
  pipeline: string,
  evaluation: Evaluation,
  seconds: number,
  failed = 0,
): string {
  const rows = [
    ['pipeline', pipeline],
    ['queries', `${evaluation.queries} (${seconds.toFixed(1)} s)`],
    ...(failed > 0 ? [['failed', `${failed} (each scored 0)`]] : []),
    ...Object.entries(evaluation.mean).map(([name, value]) => [name, value.toFixed(4)]),
  ];
  const width = Math.max(...rows.map(([name]) => name!.length));
  return rows.map(([name, value]) => `${name!.padEnd(width)}  ${value}`).join('\n');
}

/**
 * Creates the run file's folder and the file itself (empty) once the pipeline is checked and
 * before any query runs, so a run never ends in a path it cannot write; returns the open file.
 */
async function openRunFile(path: string): Promise<FileHandle> {
  try {
    await mkdir(dirname(path), { recursive: true });
    return await open(path, 'w');
  } catch (error) {
    throw new Error(`--run ${path}: cannot write it (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/** Runs `irserve eval`; exit code 1 when a query failed (the measures are still printed). */
export const evalCommand: CommandRun<typeof EVAL.flags> = async ({ flags, positionals, io }) => {
  const args = evalArgs(flags);
  const logger = await createCliLogger({ level: flags.log_level, format: 'auto' });
  let runFile: FileHandle | undefined;
  try {
    const { runs, failures, seconds, judged } = await runJudged({
      config: positionals[0]!,
      queriesPath: args.queries,
      qrelsPath: args.qrels,
      specs: [{ name: args.pipeline, pipeline: args.pipeline }],
      collection: flags.collection,
      concurrency: flags.concurrency,
      maxFailures: flags.max_failures,
      logger,
      interactive: io.interactive ?? false,
      label: 'eval',
      prepare: async () => {
        if (flags.run !== undefined) runFile = await openRunFile(flags.run);
      },
    });
    const evaluation = evaluate(runs[0]!, judged.qrels, args.measures);
    io.out(formatEvaluation(args.pipeline, evaluation, seconds, failures.length));
    await runFile?.writeFile(formatTrecRun(runs[0]!));
    return failures.length > 0 ? 1 : 0;
  } finally {
    await runFile?.close();
  }
};

function evalArgs(flags: FlagValues<typeof EVAL.flags>) {
  return {
    pipeline: required(flags.pipeline, 'pipeline'),
    queries: required(flags.queries, 'queries'),
    qrels: required(flags.qrels, 'qrels'),
    measures: measuresOption(flags.measures),
  };
}
