/**
 * `irserve eval <config.json> --pipeline P --collection C --queries q.jsonl --qrels q.tsv
 * [--run out.trec] [--concurrency 16]`: runs every judged query through the pipeline of an
 * in-process app and prints nDCG@10, MAP, R@100 and R@1000 (trec_eval definitions).
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { createApp } from '../app.js';
import { loadConfigFile } from '../config/load.js';
import { parseQrels, parseQueries, formatTrecRun, type Query } from '../eval/files.js';
import { evaluate, type Evaluation } from '../eval/metrics.js';
import { runQueries, type Scores } from '../eval/run-queries.js';
import { UsageError, type CliIo, type FlagValues } from '../cli-kit/index.js';
import { createProgress } from '../util/progress.js';
import type { CommandRun } from './command-run.js';
import { createCliLogger } from './logger.js';
import type { EVAL } from './usage.js';

interface EvalArgs {
  config: string;
  pipeline: string;
  collection: string;
  queries: string;
  qrels: string;
  run: string | undefined;
  concurrency: number;
}

/** The arguments of a parsed command line; a UsageError names a missing required flag. */
function evalArgs(flags: FlagValues<typeof EVAL.flags>, [config]: string[]): EvalArgs {
  const { pipeline, collection, queries, qrels } = flags;
  for (const [name, value] of Object.entries({ pipeline, collection, queries, qrels }))
    if (!value) throw new UsageError(`--${name} is required`);
  return {
    config: config!,
    pipeline: pipeline!,
    collection: collection!,
    queries: queries!,
    qrels: qrels!,
    run: flags.run,
    concurrency: flags.concurrency,
  };
}

/** The table printed at the end. */
export function formatEvaluation(
  pipeline: string,
  evaluation: Evaluation,
  seconds: number,
): string {
  const rows = [
    ['pipeline', pipeline],
    ['queries', `${evaluation.queries} (${seconds.toFixed(1)} s)`],
    ...Object.entries(evaluation.mean).map(([name, value]) => [name, value.toFixed(4)]),
  ];
  return rows.map(([name, value]) => `${name!.padEnd(10)} ${value}`).join('\n');
}

/** Runs `irserve eval`. */
export const evalCommand: CommandRun<typeof EVAL.flags> = async ({ flags, positionals, io }) => {
  const args = evalArgs(flags, positionals);
  const logger = await createCliLogger({ level: flags.log_level, format: 'auto' });
  const queries = parseQueries(await readFile(args.queries, 'utf8'), args.queries);
  const qrels = parseQrels(await readFile(args.qrels, 'utf8'), args.qrels);
  const judged = queries.filter((query) => qrels.has(query.id));
  const asked = new Set(judged.map((query) => query.id));
  const missing = [...qrels.keys()].filter((id) => !asked.has(id)).length;
  if (missing > 0)
    logger.warn(`${missing} judged queries are not in ${args.queries}: they score 0`);
  const started = performance.now();
  const run = await retrieveAll(args, judged, logger, io);
  const evaluation = evaluate(run, qrels);
  io.out(formatEvaluation(args.pipeline, evaluation, (performance.now() - started) / 1000));
  if (args.run !== undefined) await writeFile(args.run, formatTrecRun(run));
};

async function retrieveAll(args: EvalArgs, queries: Query[], logger: Logger, io: CliIo) {
  const { config, configDir } = await loadConfigFile(args.config);
  const app = await createApp(config, { logger, configDir });
  try {
    await app.start();
    const progress = createProgress({
      label: 'eval',
      total: queries.length,
      interactive: io.interactive ?? false,
      logger,
      unit: 'queries',
    });
    return await runQueries({
      queries,
      concurrency: args.concurrency,
      progress,
      retrieve: async (query) => {
        const body = { pipeline: args.pipeline, collection: args.collection, query: query.text };
        const response = await app.core.pipelines.run(body);
        return response.scores as Scores;
      },
    });
  } finally {
    await app.close();
  }
}
