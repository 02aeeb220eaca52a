/**
 * `irserve experiment <config.json> --queries q.jsonl --qrels qrels.tsv --pipeline A --pipeline
 * B ... [--baseline A] [--measures ...] [--out dir]`: every judged query through every pipeline
 * of an in-process app, the measures of each, paired significance against the baseline, a table
 * on the terminal and, with --out, the report, results, per-query values and TREC runs.
 */
import { UsageError, type FlagValues } from '../cli-kit/index.js';
import { analyseExperiment } from '../experiment/analyse.js';
import { baselineIndex, parsePipelineArgs } from '../experiment/inputs.js';
import { prepareOutputDir, writeExperimentOutputs } from '../experiment/outputs.js';
import { runJudged } from '../experiment/run-pipelines.js';
import { formatExperiment } from '../experiment/table.js';
import type { CommandRun } from './command-run.js';
import { measuresOption, required } from './eval.js';
import { createCliLogger } from './logger.js';
import type { EXPERIMENT } from './usage.js';

/** The checked arguments; a UsageError naming the flag that is wrong. */
function experimentArgs(flags: FlagValues<typeof EXPERIMENT.flags>) {
  if (flags.pipeline.length === 0)
    throw new UsageError('--pipeline is required (give it twice or more to compare pipelines)');
  const specs = usage(() => parsePipelineArgs(flags.pipeline));
  return {
    specs,
    baseline: usage(() => baselineIndex(specs, flags.baseline)),
    queries: required(flags.queries, 'queries'),
    qrels: required(flags.qrels, 'qrels'),
    measures: measuresOption(flags.measures),
  };
}

function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs `irserve experiment`; 0 when every query ran, 1 when some failed (outputs still written). */
export const experimentCommand: CommandRun<typeof EXPERIMENT.flags> = async ({
  flags,
  positionals,
  io,
}) => {
  const args = experimentArgs(flags);
  const logger = await createCliLogger({ level: flags.log_level, format: 'auto' });
  const { runs, failures, seconds, judged } = await runJudged({
    config: positionals[0]!,
    queriesPath: args.queries,
    qrelsPath: args.qrels,
    specs: args.specs,
    collection: flags.collection,
    concurrency: flags.concurrency,
    maxFailures: flags.max_failures,
    logger,
    interactive: io.interactive ?? false,
    label: 'experiment',
    prepare: async () => {
      if (flags.out !== undefined) await prepareOutputDir(flags.out);
    },
  });
  const result = analyseExperiment(
    args.specs.map((spec, i) => ({
      ...spec,
      run: runs[i]!,
      failed: new Map(failures.filter((f) => f.pipeline === i).map((f) => [f.query, f.message])),
    })),
    judged.qrels,
    {
      measures: args.measures,
      baseline: args.baseline,
      trials: flags.trials,
      seed: flags.seed,
      texts: judged.texts,
    },
  );
  io.out(formatExperiment(result, seconds));
  if (flags.out !== undefined) {
    const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
    await writeExperimentOutputs(flags.out, result, runs, {
      title: flags.title ?? 'irserve experiment',
      subtitle: `${args.queries} against ${args.qrels}, ${date} UTC`,
    });
    io.out(`\nreport: ${flags.out}/report.html (results.json, per-query.csv, runs/)`);
  }
  if (failures.length === 0) return 0;
  io.err(`irserve: ${failures.length} queries failed (each scored 0; listed in the report)`);
  return 1;
};
