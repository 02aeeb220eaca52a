/**
 * Learning fusion parameters with k-fold cross-validation: on each fold's training queries the
 * search (fusion-search.ts) picks a setting, which is then measured on the fold's held-out
 * queries; the held-out values of all folds together, against the default's on the same
 * queries, are the gain to expect. The setting to use is then picked on every query.
 */
import type { Scores } from '../engines/contract.js';
import type { MeasureSpec } from '../eval/measure-name.js';
import { computeMeasure, RankedQuery } from '../eval/measures.js';
import type { Qrels } from '../eval/metrics.js';
import {
  coordinateAscent,
  defaultParams,
  gridSearch,
  gridSettings,
  makeFolds,
  paramsKey,
  type SearchResult,
  type SearchSpace,
} from './fusion-search.js';
import { fuseLocally, type FusionParams, type FusionTarget } from './fusion-target.js';
import { seededRandom } from '../util/seeded-random.js';
import { mean, pairedTTest, winsLossesTies } from './stats.js';

export type SearchMethod = 'grid' | 'coordinate';

export interface TuneOptions {
  target: FusionTarget;
  /** Per branch: query id to its scores. */
  runs: readonly ReadonlyMap<string, Scores>[];
  qrels: Qrels;
  measure: MeasureSpec;
  space: SearchSpace;
  search: SearchMethod;
  folds: number;
  seed: number;
}

export interface FoldResult {
  train: number;
  test: number;
  params: FusionParams;
  trainScore: number;
  heldOut: number;
  defaultHeldOut: number;
}

export interface TuneResult {
  measure: string;
  queries: number;
  search: SearchMethod;
  /** Settings evaluated, over all searches. */
  tried: number;
  folds: FoldResult[];
  /** Every query measured by the setting its fold's training chose, against the default. */
  heldOut: {
    tuned: number;
    default: number;
    difference: number;
    p: number;
    wins: number;
    losses: number;
    ties: number;
  };
  /** The setting picked on every query, and its score there (optimistic). */
  final: { params: FusionParams; score: number; defaultScore: number };
  defaults: FusionParams;
}

/**
 * Tunes the target's parameters (see the file comment).
 *
 * @example
 * const result = tuneFusion({ target, runs, qrels, measure: parseMeasure('nDCG@10'),
 *   space: { weights: 2, step: 0.1, ks: [10, 20, 60] }, search: 'grid', folds: 5, seed: 42 });
 */
export function tuneFusion(options: TuneOptions): TuneResult {
  const queryIds = [...options.qrels.keys()];
  if (options.folds > queryIds.length)
    throw new Error(`tune: ${options.folds} folds for ${queryIds.length} judged queries`);
  const evaluate = memoizedEvaluator(options, queryIds);
  const settings = options.search === 'grid' ? gridSettings(options.space) : [];
  const search = (train: readonly number[]): SearchResult =>
    options.search === 'grid'
      ? gridSearch(settings, evaluate, train)
      : coordinateAscent(options.space, evaluate, train);
  const defaults = defaultParams(options.space);
  const defaultValues = evaluate(defaults);
  const heldOutValues = new Array<number>(queryIds.length).fill(0);
  const folds = makeFolds(queryIds.length, options.folds, seededRandom(options.seed)).map(
    (test): FoldResult => {
      const held = new Set(test);
      const train = queryIds.map((_, i) => i).filter((i) => !held.has(i));
      const best = search(train);
      const values = evaluate(best.params);
      for (const i of test) heldOutValues[i] = values[i]!;
      return {
        train: train.length,
        test: test.length,
        params: best.params,
        trainScore: best.score,
        heldOut: mean(test.map((i) => values[i]!)),
        defaultHeldOut: mean(test.map((i) => defaultValues[i]!)),
      };
    },
  );
  const all = queryIds.map((_, i) => i);
  const final = search(all);
  const test = pairedTTest(defaultValues, heldOutValues);
  return {
    measure: options.measure.name,
    queries: queryIds.length,
    search: options.search,
    tried: evaluate.count(),
    folds,
    heldOut: {
      tuned: mean(heldOutValues),
      default: mean(defaultValues),
      difference: test.meanDifference,
      p: test.p,
      ...winsLossesTies(defaultValues, heldOutValues),
    },
    final: { params: final.params, score: final.score, defaultScore: mean(defaultValues) },
    defaults,
  };
}

/** Per-query values of a setting over every query, computed once per setting. */
function memoizedEvaluator(options: TuneOptions, queryIds: readonly string[]) {
  const kept = new Map<string, number[]>();
  const evaluate = (params: FusionParams): readonly number[] => {
    const key = paramsKey(params);
    let values = kept.get(key);
    if (values === undefined) {
      values = queryIds.map((query) => {
        const rankings = options.runs.map((run) => run.get(query) ?? {});
        const fused = fuseLocally(options.target, rankings, params);
        return computeMeasure(options.measure, new RankedQuery(fused), options.qrels.get(query)!);
      });
      kept.set(key, values);
    }
    return values;
  };
  return Object.assign(evaluate, { count: () => kept.size });
}
