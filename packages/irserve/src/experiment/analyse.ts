/**
 * An experiment's numbers from its runs: per pipeline and measure the per-query values, the mean
 * and its 95% t confidence interval, recall against depth; per pipeline other than the baseline
 * and per measure, the paired t-test and randomisation test against the baseline, each
 * Holm-Bonferroni-adjusted over the pipelines compared on that measure, Cohen's d and wins /
 * losses / ties. Pure (no Node APIs): the playground builds the same result in the browser.
 * The result is plain JSON, the `results.json` of `irserve experiment`.
 */
import type { MeasureSpec } from '../eval/measure-name.js';
import { computeMeasure, RankedQuery, relevantIn, numRelevant } from '../eval/measures.js';
import type { Qrels } from '../eval/metrics.js';
import {
  cohensD,
  confidenceInterval,
  holm,
  pairedTTest,
  randomisationTest,
  winsLossesTies,
} from './stats.js';

/** One pipeline's run: query id to scores (a failed query: `{}`), and its failures. */
export interface PipelineRun {
  name: string;
  pipeline: string;
  run: ReadonlyMap<string, Readonly<Record<string, number>>>;
  failed: ReadonlyMap<string, string>;
}

export interface AnalysisOptions {
  measures: readonly MeasureSpec[];
  /** Index of the baseline pipeline. */
  baseline: number;
  /** Random sign flips of the randomisation test (default 10,000). */
  trials?: number;
  seed?: number;
  /** Query id to text, shown in the report. */
  texts?: ReadonlyMap<string, string>;
}

export interface MeanWithInterval {
  mean: number;
  low: number;
  high: number;
}

export interface PipelineResult {
  name: string;
  pipeline: string;
  means: Record<string, MeanWithInterval>;
  /** Measure to per-query values, in the order of `ExperimentResult.queries`. */
  perQuery: Record<string, number[]>;
  failed: { query: string; message: string }[];
  /** Mean recall (relevance >= 1) at each depth. */
  recall: { depth: number; value: number }[];
}

export interface Comparison {
  /** Index of the pipeline compared with the baseline. */
  pipeline: number;
  measure: string;
  baselineMean: number;
  mean: number;
  difference: number;
  t: number;
  pT: number;
  pTHolm: number;
  pRandom: number;
  pRandomHolm: number;
  /** Cohen's d for paired samples. */
  effectSize: number;
  wins: number;
  losses: number;
  ties: number;
}

export interface ExperimentResult {
  version: 1;
  measures: string[];
  baseline: number;
  queries: { id: string; text?: string }[];
  pipelines: PipelineResult[];
  comparisons: Comparison[];
  settings: { trials: number; seed: number; level: number; correction: 'holm' };
}

/** Depths of the recall curve. */
export const RECALL_DEPTHS = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000];

/**
 * Analyses the runs of an experiment over the queries of `qrels` (trec_eval -c: a judged query
 * a pipeline did not answer scores 0).
 *
 * @example
 * const result = analyseExperiment(runs, qrels, { measures: parseMeasures(['nDCG@10']), baseline: 0 });
 */
export function analyseExperiment(
  pipelines: readonly PipelineRun[],
  qrels: Qrels,
  options: AnalysisOptions,
): ExperimentResult {
  const trials = options.trials ?? 10_000;
  const seed = options.seed ?? 42;
  const queryIds = [...qrels.keys()];
  const results = pipelines.map((pipeline) => pipelineResult(pipeline, qrels, options.measures));
  const comparisons = compare(results, options.baseline, options.measures, { trials, seed });
  return {
    version: 1,
    measures: options.measures.map((m) => m.name),
    baseline: options.baseline,
    queries: queryIds.map((id) => {
      const text = options.texts?.get(id);
      return text === undefined ? { id } : { id, text };
    }),
    pipelines: results,
    comparisons,
    settings: { trials, seed, level: 0.95, correction: 'holm' },
  };
}

function pipelineResult(
  pipeline: PipelineRun,
  qrels: Qrels,
  measures: readonly MeasureSpec[],
): PipelineResult {
  const perQuery: Record<string, number[]> = Object.fromEntries(measures.map((m) => [m.name, []]));
  const recallSums = RECALL_DEPTHS.map(() => 0);
  for (const [query, judged] of qrels) {
    const ranked = new RankedQuery(pipeline.run.get(query) ?? {});
    for (const measure of measures)
      perQuery[measure.name]!.push(computeMeasure(measure, ranked, judged));
    const relevant = numRelevant(judged);
    if (relevant > 0)
      RECALL_DEPTHS.forEach((depth, i) => {
        recallSums[i]! += relevantIn(ranked.trecOrder(), judged, depth) / relevant;
      });
  }
  const means = Object.fromEntries(
    measures.map((m) => [m.name, confidenceInterval(perQuery[m.name]!)]),
  );
  const n = Math.max(qrels.size, 1);
  return {
    name: pipeline.name,
    pipeline: pipeline.pipeline,
    means,
    perQuery,
    failed: [...pipeline.failed].map(([query, message]) => ({ query, message })),
    recall: RECALL_DEPTHS.map((depth, i) => ({ depth, value: recallSums[i]! / n })),
  };
}

function compare(
  results: readonly PipelineResult[],
  baseline: number,
  measures: readonly MeasureSpec[],
  random: { trials: number; seed: number },
): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const measure of measures) {
    const base = results[baseline]!.perQuery[measure.name]!;
    const rows = results.flatMap((result, index) => {
      if (index === baseline) return [];
      const values = result.perQuery[measure.name]!;
      const test = pairedTTest(base, values);
      return [
        {
          pipeline: index,
          measure: measure.name,
          baselineMean: results[baseline]!.means[measure.name]!.mean,
          mean: result.means[measure.name]!.mean,
          difference: test.meanDifference,
          t: test.t,
          pT: test.p,
          pTHolm: Number.NaN,
          pRandom: randomisationTest(base, values, random),
          pRandomHolm: Number.NaN,
          effectSize: cohensD(base, values),
          ...winsLossesTies(base, values),
        },
      ];
    });
    const tHolm = holm(rows.map((row) => row.pT));
    const randomHolm = holm(rows.map((row) => row.pRandom));
    rows.forEach((row, i) => {
      row.pTHolm = tHolm[i]!;
      row.pRandomHolm = randomHolm[i]!;
    });
    comparisons.push(...rows);
  }
  return comparisons;
}
