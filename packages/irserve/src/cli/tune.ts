/**
 * `irserve tune <config.json> --pipeline "{a, b}WeightedRRF%100" --queries q.jsonl --qrels
 * qrels.tsv [--measure nDCG@10] [--folds 5] [--search grid|coordinate] [--step 0.1] [--k ...]
 * [--name tuned] [--out snippet.json]`: learns the fusion's weights (and RRF's k) from the
 * judgements with k-fold cross-validation, checks the chosen setting through the server, and
 * prints the config snippet (a fusion service and a pipeline alias) to paste.
 */
import { writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { UsageError, type CliIo, type FlagValues } from '../cli-kit/index.js';
import { parseMeasure, type MeasureSpec } from '../eval/measure-name.js';
import { evaluate, type Run } from '../eval/metrics.js';
import { openConfigSource, type RetrievalSource } from '../experiment/app-source.js';
import { gridSize, type SearchSpace } from '../experiment/fusion-search.js';
import {
  fusionFields,
  fusionTarget,
  type FusionParams,
  type FusionTarget,
} from '../experiment/fusion-target.js';
import { loadJudgedQueries, type JudgedQueries } from '../experiment/inputs.js';
import { checkPipelines, runPipelines } from '../experiment/run-pipelines.js';
import { configSnippet, formatSnippet, formatTuning } from '../experiment/tune-report.js';
import { tuneFusion, type SearchMethod } from '../experiment/tune.js';
import type { CommandRun } from './command-run.js';
import { required } from './eval.js';
import { createCliLogger } from './logger.js';
import type { TUNE } from './usage.js';

/** k values tried for RRF and WeightedRRF unless --k says otherwise (ranx's range, and 60). */
export const DEFAULT_KS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
/** Above this many grid settings, `--search auto` uses coordinate ascent. */
const GRID_LIMIT = 2000;

interface TuneArgs {
  config: string;
  pipeline: string;
  fusion: string | undefined;
  collection: string | undefined;
  queries: string;
  qrels: string;
  measure: MeasureSpec;
  folds: number;
  search: 'auto' | SearchMethod;
  step: number;
  ks: number[] | undefined;
  seed: number;
  name: string;
  out: string | undefined;
  concurrency: number;
  interactive: boolean;
}

/** Whether `step` divides 1 into equal parts (0.5, 0.25, 0.2, 0.1, 0.05, ...). */
function dividesOne(step: number): boolean {
  return step > 0 && step <= 0.5 && Math.abs(1 / step - Math.round(1 / step)) < 1e-9;
}

/** The checked arguments; a UsageError naming the flag that is wrong. */
function tuneArgs(
  flags: FlagValues<typeof TUNE.flags>,
  config: string,
  interactive: boolean,
): TuneArgs {
  if (!dividesOne(flags.step))
    throw new UsageError(
      `--step must divide 1 into equal parts (0.5, 0.25, 0.2, 0.1, 0.05, ...), got "${flags.step}"`,
    );
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(flags.name))
    throw new UsageError(
      `--name must be a service-like name (letters, digits, - and _), got "${flags.name}"`,
    );
  let measure: MeasureSpec;
  try {
    measure = parseMeasure(flags.measure);
  } catch (error) {
    throw new UsageError(`--measure: ${(error as Error).message}`);
  }
  return {
    config,
    pipeline: required(flags.pipeline, 'pipeline'),
    fusion: flags.fusion,
    collection: flags.collection,
    queries: required(flags.queries, 'queries'),
    qrels: required(flags.qrels, 'qrels'),
    measure,
    folds: flags.folds,
    search: flags.search,
    step: flags.step,
    ks: flags.k
      ?.split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '')
      .map(kValue),
    seed: flags.seed,
    name: flags.name,
    out: flags.out,
    concurrency: flags.concurrency,
    interactive,
  };
}

function kValue(text: string): number {
  const k = Number(text);
  if (!Number.isFinite(k) || k < 0)
    throw new UsageError(`--k: "${text}" is not a non-negative number`);
  return k;
}

/** The search space of the target's rule: weights for the weighted rules, k for the RRFs. */
function searchSpace(target: FusionTarget, args: TuneArgs): SearchSpace {
  const weights = target.rule === 'RRF' ? 0 : target.branches.length;
  if (target.rule === 'ScoreFusion') return { weights, step: args.step, ks: undefined };
  const ks = args.ks ?? DEFAULT_KS;
  return ks.length === 1
    ? { weights, step: args.step, ks: undefined, fixedK: ks[0] }
    : { weights, step: args.step, ks };
}

function describeSpace(space: SearchSpace): string {
  const parts: string[] = [];
  if (space.weights > 0) parts.push(`${space.weights} weights in steps of ${space.step}`);
  if (space.ks) parts.push(`k in ${space.ks.join(', ')}`);
  else if (space.fixedK !== undefined) parts.push(`k ${space.fixedK}`);
  return parts.join(' and ');
}

/** The alias's expression when `pipeline` names one, else `pipeline` itself. */
function expand(pipeline: string, source: RetrievalSource): string {
  return source.aliases()[pipeline.trim()] ?? pipeline;
}

/** Runs `irserve tune`; returns the exit code. */
export const tuneCommand: CommandRun<typeof TUNE.flags> = async ({ flags, positionals, io }) => {
  const args = tuneArgs(flags, positionals[0]!, io.interactive ?? false);
  const logger = await createCliLogger({ level: flags.log_level, format: 'auto' });
  return tune(args, logger, io);
};

async function tune(args: TuneArgs, logger: Logger, io: CliIo): Promise<number> {
  const judged = await loadJudgedQueries(args.queries, args.qrels);
  const source = await openConfigSource(args.config, logger, args.interactive);
  try {
    const target = fusionTarget(expand(args.pipeline, source), args.fusion);
    const space = searchSpace(target, args);
    const search =
      args.search !== 'auto' ? args.search : gridSize(space) <= GRID_LIMIT ? 'grid' : 'coordinate';
    await checkPipelines(source, [
      { name: args.pipeline, pipeline: target.pipeline, collection: args.collection },
    ]);
    const started = performance.now();
    const branches = target.branches.map((branch, i) => ({
      name: `branch ${i + 1} (${branch})`,
      pipeline: branch,
    }));
    const runs = await runQueries(source, { args, judged, logger }, branches, 'tune: branches');
    const result = tuneFusion({
      target,
      runs,
      qrels: judged.qrels,
      measure: args.measure,
      space,
      search,
      folds: args.folds,
      seed: args.seed,
    });
    const check = await checkThroughServer(
      source,
      target,
      { args, judged, logger },
      result.final.params,
    );
    const seconds = (performance.now() - started) / 1000;
    io.out(
      formatTuning(target, result, {
        spaceText: describeSpace(space),
        seconds,
        check: { score: check },
      }),
    );
    const snippet = configSnippet(target, result.final.params, args.name);
    io.out(
      `\nPaste into the config (then use the pipeline "${args.name}"):\n${formatSnippet(snippet)}`,
    );
    if (Math.abs(check - result.final.score) > 1e-9) {
      io.err(
        `irserve: the server gave ${check} where the tuning computed ${result.final.score}; please report this`,
      );
      return 1;
    }
    if (args.out !== undefined)
      await writeFile(args.out, JSON.stringify({ ...snippet, tuning: result }, null, 2) + '\n');
    return 0;
  } finally {
    await source.close();
  }
}

/** The measure of the chosen setting run through the server's pipeline (runtime_kwargs). */
async function checkThroughServer(
  source: RetrievalSource,
  target: FusionTarget,
  context: { args: TuneArgs; judged: JudgedQueries; logger: Logger },
  params: FusionParams,
): Promise<number> {
  const { args, judged } = context;
  const specs = [{ name: 'tuned', pipeline: target.pipeline }];
  const runs = await runQueries(source, context, specs, 'tune: check', {
    [target.label]: fusionFields(target.rule, params),
  });
  return evaluate(runs[0]!, judged.qrels, [args.measure]).mean[args.measure.name]!;
}

/** Every judged query through `specs`; any failed query stops the tuning. */
async function runQueries(
  source: RetrievalSource,
  context: { args: TuneArgs; judged: JudgedQueries; logger: Logger },
  specs: { name: string; pipeline: string }[],
  label: string,
  runtimeKwargs?: Record<string, Record<string, unknown>>,
): Promise<Run[]> {
  const { args, judged, logger } = context;
  const { runs, failures } = await runPipelines({
    source,
    specs,
    collection: args.collection,
    queries: judged.queries,
    concurrency: args.concurrency,
    maxFailures: 0,
    logger,
    interactive: args.interactive,
    label,
    runtimeKwargs,
  });
  if (failures.length > 0) throw new Error(`${label}: ${failures.length} queries failed`);
  return runs;
}
