/**
 * Searching fusion parameters on judged queries (docs/experiments.md, "Learning fusion weights"):
 *
 * - settings: weights on the simplex (each a multiple of `step`, summing to 1; scaling all
 *   weights changes no ranking) for WeightedRRF and ScoreFusion; k from a list for RRF and
 *   WeightedRRF;
 * - grid search tries every setting, as ranx's optimize_fusion does; coordinate ascent starts at
 *   equal weights and k = 60, sets one weight (the others scaled to fill the rest) or k at a
 *   time to its best value on the grid, and repeats until a round changes nothing;
 * - a setting's score is the mean of the measure over the training queries; on equal scores the
 *   setting tried first wins, and the default (equal weights, k = 60) is always tried first.
 *
 * A setting's per-query values are computed once for every query and kept, so the folds of a
 * cross-validation only average different subsets.
 */
import type { FusionParams } from './fusion-target.js';

/** The default every search starts from and compares with: RRF's k and equal weights. */
export const DEFAULT_K = 60;

export interface SearchSpace {
  /** Number of branches (weights), or 0 when weights are not tuned (RRF). */
  weights: number;
  /** Grid step of the weights (default 0.1). */
  step: number;
  /** k values to try; undefined when k is not tuned (ScoreFusion, or k fixed). */
  ks: readonly number[] | undefined;
  /** k when it is not tuned but the rule takes one. */
  fixedK?: number | undefined;
}

/** Per-query values of one setting, over every query, in a fixed order. */
export type Evaluator = (params: FusionParams) => readonly number[];

export interface SearchResult {
  params: FusionParams;
  /** Mean over the training queries. */
  score: number;
  /** Settings evaluated. */
  tried: number;
}

const round = (value: number) => Math.round(value * 1e9) / 1e9;

/** The default setting of a space: equal weights, k = 60 (or the fixed k). */
export function defaultParams(space: SearchSpace): FusionParams {
  const params: FusionParams = {};
  if (space.weights > 0)
    params.weights = new Array<number>(space.weights).fill(round(1 / space.weights));
  const k = space.ks !== undefined ? DEFAULT_K : space.fixedK;
  if (k !== undefined) params.k = k;
  return params;
}

/** Every weight vector on the simplex with the grid's step. */
export function simplexGrid(dimensions: number, step: number): number[][] {
  const units = Math.round(1 / step);
  const out: number[][] = [];
  const walk = (prefix: number[], left: number) => {
    if (prefix.length === dimensions - 1) {
      out.push([...prefix, left].map((u) => round(u / units)));
      return;
    }
    for (let u = left; u >= 0; u--) walk([...prefix, u], left - u);
  };
  walk([], units);
  return out;
}

/** Number of settings a grid search would try. */
export function gridSize(space: SearchSpace): number {
  const weights = space.weights > 0 ? simplexGrid(space.weights, space.step).length : 1;
  return weights * (space.ks?.length ?? 1);
}

/** Every setting of the space, the default first. */
export function gridSettings(space: SearchSpace): FusionParams[] {
  const weightOptions = space.weights > 0 ? simplexGrid(space.weights, space.step) : [undefined];
  // The default k first, so that among settings that tie the default's k wins.
  const kOptions = space.ks
    ? [...space.ks].sort((a, b) => Number(b === DEFAULT_K) - Number(a === DEFAULT_K))
    : [space.fixedK];
  const settings: FusionParams[] = [defaultParams(space)];
  for (const weights of weightOptions)
    for (const k of kOptions) {
      const params: FusionParams = {};
      if (weights) params.weights = weights;
      if (k !== undefined) params.k = k;
      settings.push(params);
    }
  return settings;
}

/** A key that identifies a setting (for keeping its values). */
export function paramsKey(params: FusionParams): string {
  return `${params.weights?.join(',') ?? ''}|${params.k ?? ''}`;
}

/** Mean of `values` at `indexes`. */
function meanAt(values: readonly number[], indexes: readonly number[]): number {
  let sum = 0;
  for (const i of indexes) sum += values[i]!;
  return indexes.length > 0 ? sum / indexes.length : 0;
}

/** The best of `settings` on the queries at `train`. */
export function gridSearch(
  settings: readonly FusionParams[],
  evaluate: Evaluator,
  train: readonly number[],
): SearchResult {
  let best: SearchResult = { params: settings[0]!, score: -Infinity, tried: 0 };
  for (const params of settings) {
    const score = meanAt(evaluate(params), train);
    if (score > best.score + 1e-12) best = { params, score, tried: 0 };
  }
  return { ...best, tried: settings.length };
}

/** Coordinate ascent from the default (see the file comment); at most `rounds` rounds. */
export function coordinateAscent(
  space: SearchSpace,
  evaluate: Evaluator,
  train: readonly number[],
  rounds = 20,
): SearchResult {
  let best = defaultParams(space);
  let bestScore = meanAt(evaluate(best), train);
  const tried = new Set([paramsKey(best)]);
  const levels = Array.from({ length: Math.round(1 / space.step) + 1 }, (_, i) =>
    round(i * space.step),
  );
  for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
    const before = paramsKey(best);
    for (let coordinate = 0; coordinate < space.weights; coordinate++)
      for (const level of levels) {
        const candidate = { ...best, weights: withWeight(best.weights!, coordinate, level) };
        tried.add(paramsKey(candidate));
        const score = meanAt(evaluate(candidate), train);
        if (score > bestScore + 1e-12) [best, bestScore] = [candidate, score];
      }
    for (const k of space.ks ?? []) {
      const candidate = { ...best, k };
      tried.add(paramsKey(candidate));
      const score = meanAt(evaluate(candidate), train);
      if (score > bestScore + 1e-12) [best, bestScore] = [candidate, score];
    }
    if (paramsKey(best) === before) break;
  }
  return { params: best, score: bestScore, tried: tried.size };
}

/** `weights` with `weights[index] = value` and the others scaled to sum to 1 - value. */
function withWeight(weights: readonly number[], index: number, value: number): number[] {
  const others = weights.reduce((sum, w, i) => (i === index ? sum : sum + w), 0);
  const n = weights.length - 1;
  return weights.map((w, i) =>
    round(i === index ? value : others > 0 ? (w / others) * (1 - value) : (1 - value) / n),
  );
}

/**
 * Query positions split into `folds` folds after a seeded shuffle (the same seed, the same
 * folds), as even as they can be.
 */
export function makeFolds(count: number, folds: number, random: () => number): number[][] {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const out: number[][] = Array.from({ length: folds }, () => []);
  order.forEach((query, i) => out[i % folds]!.push(query));
  return out.map((fold) => fold.sort((a, b) => a - b));
}
