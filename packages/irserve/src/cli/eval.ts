/**
 * `irserve eval <config.json> --pipeline P --collection C --queries q.jsonl --qrels q.tsv
 * [--run out.trec] [--concurrency 16]`: runs every judged query through the pipeline of an
 * in-process app and prints nDCG@10, MAP, R@100 and R@1000 (trec_eval definitions).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { createApp } from '../app.js';
import { loadConfigFile } from '../config/load.js';
import { parseQrels, parseQueries, formatTrecRun, type Query } from '../eval/files.js';
import { evaluate, type Evaluation } from '../eval/metrics.js';
import { runQueries, type Scores } from '../eval/run-queries.js';
import { createProgress } from '../util/progress.js';
import { createCliLogger } from './logger.js';
import { UsageError } from './usage-error.js';
import { EVAL_USAGE } from './usage.js';

const OPTIONS = {
  pipeline: { type: 'string' },
  collection: { type: 'string' },
  queries: { type: 'string' },
  qrels: { type: 'string' },
  run: { type: 'string' },
  concurrency: { type: 'string', default: '16' },
  'log-level': { type: 'string', default: 'warn' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

interface EvalArgs {
  config: string;
  pipeline: string;
  collection: string;
  queries: string;
  qrels: string;
  run: string | undefined;
  concurrency: number;
  logLevel: string;
}

function parseEvalArgs(argv: string[]): EvalArgs | undefined {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
  });
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new UsageError(`eval needs one config file\n${EVAL_USAGE}`);
  for (const name of ['pipeline', 'collection', 'queries', 'qrels'] as const) {
    if (!values[name]) throw new UsageError(`eval needs --${name}\n${EVAL_USAGE}`);
  }
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024)
    throw new UsageError(
      `--concurrency must be an integer from 1 to 1024, got "${values.concurrency}"`,
    );
  return {
    config: positionals[0]!,
    pipeline: values.pipeline!,
    collection: values.collection!,
    queries: values.queries!,
    qrels: values.qrels!,
    run: values.run,
    concurrency,
    logLevel: values['log-level'],
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

/** Runs `irserve eval`; returns the exit code. */
export async function runEvalCommand(argv: string[]): Promise<number> {
  const args = parseEvalArgs(argv);
  if (args === undefined) {
    console.log(EVAL_USAGE);
    return 0;
  }
  const logger = await createCliLogger({ level: args.logLevel, format: 'auto' });
  const queries = parseQueries(await readFile(args.queries, 'utf8'), args.queries);
  const qrels = parseQrels(await readFile(args.qrels, 'utf8'), args.qrels);
  const judged = queries.filter((query) => qrels.has(query.id));
  const asked = new Set(judged.map((query) => query.id));
  const missing = [...qrels.keys()].filter((id) => !asked.has(id)).length;
  if (missing > 0)
    logger.warn(`${missing} judged queries are not in ${args.queries}: they score 0`);
  const started = performance.now();
  const run = await retrieveAll(args, judged, logger);
  const evaluation = evaluate(run, qrels);
  console.log(formatEvaluation(args.pipeline, evaluation, (performance.now() - started) / 1000));
  if (args.run !== undefined) await writeFile(args.run, formatTrecRun(run));
  return 0;
}

async function retrieveAll(args: EvalArgs, queries: Query[], logger: Logger) {
  const { config, configDir } = await loadConfigFile(args.config);
  const app = await createApp(config, { logger, configDir });
  try {
    await app.start();
    const progress = createProgress({
      label: 'eval',
      total: queries.length,
      interactive: Boolean(process.stderr.isTTY),
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
