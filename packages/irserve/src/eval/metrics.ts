/**
 * Evaluation of a run against qrels with trec_eval's definitions (measures.ts), measures named
 * as ir_measures names them (measure-name.ts). Means are over the queries of the qrels
 * (trec_eval -c): a judged query with no results scores 0; queries of the run without
 * judgements are ignored.
 */
import { parseMeasures, type MeasureSpec } from './measure-name.js';
import {
  averagePrecisionAt,
  computeMeasure,
  ndcgAt,
  numRelevant as numRelevantAt,
  RankedQuery,
  relevantIn,
  type Judgements,
} from './measures.js';

export { RankedQuery, type Judgements };

/** Query id to judgements. */
export type Qrels = ReadonlyMap<string, Judgements>;

/** Query id to its scores (document id to score). */
export type Run = ReadonlyMap<string, Readonly<Record<string, number>>>;

/**
 * Document ids in trec_eval order: score descending, then id descending.
 *
 * @example
 * rankDocuments({ a: 1, b: 2, c: 1 }) // ['b', 'c', 'a']
 */
export function rankDocuments(scores: Readonly<Record<string, number>>): string[] {
  return [...new RankedQuery(scores).trecOrder()];
}

/** nDCG at cut-off `k` of a ranking (trec_eval's ndcg_cut.k). */
export function ndcg(ranking: readonly string[], judged: Judgements, k: number): number {
  return ndcgAt(ranking, judged, k);
}

/** Number of relevant (relevance >= 1) judged documents. */
export function numRelevant(judged: Judgements): number {
  return numRelevantAt(judged, 1);
}

/** Average precision of a ranking (over all of it; trec_eval's map). */
export function averagePrecision(ranking: readonly string[], judged: Judgements): number {
  return averagePrecisionAt(ranking, judged);
}

/** Recall at cut-off `k` (trec_eval's recall.k). */
export function recall(ranking: readonly string[], judged: Judgements, k: number): number {
  const relevant = numRelevant(judged);
  return relevant > 0 ? relevantIn(ranking, judged, k) / relevant : 0;
}

/** The measures `irserve eval` prints unless told others. */
export const DEFAULT_MEASURE_NAMES: readonly string[] = ['nDCG@10', 'AP', 'R@100', 'R@1000'];

export interface Evaluation {
  /** Measure name to mean over the qrels' queries. */
  mean: Record<string, number>;
  /** Query id to measure name to value. */
  perQuery: Map<string, Record<string, number>>;
  queries: number;
}

/**
 * Evaluates a run against qrels; queries of the qrels missing from the run score 0, queries of
 * the run missing from the qrels are ignored (trec_eval -c).
 *
 * @example
 * evaluate(new Map([['q1', { d1: 2, d2: 1 }]]), new Map([['q1', new Map([['d2', 1]])]])).mean['AP'] // 0.5
 */
export function evaluate(
  run: Run,
  qrels: Qrels,
  measures: readonly MeasureSpec[] = parseMeasures(DEFAULT_MEASURE_NAMES),
): Evaluation {
  const perQuery = new Map<string, Record<string, number>>();
  const sums: Record<string, number> = Object.fromEntries(measures.map((m) => [m.name, 0]));
  for (const [query, judged] of qrels) {
    const ranked = new RankedQuery(run.get(query) ?? {});
    const values: Record<string, number> = {};
    for (const measure of measures) {
      values[measure.name] = computeMeasure(measure, ranked, judged);
      sums[measure.name]! += values[measure.name]!;
    }
    perQuery.set(query, values);
  }
  const n = qrels.size;
  const mean = Object.fromEntries(measures.map((m) => [m.name, n > 0 ? sums[m.name]! / n : 0]));
  return { mean, perQuery, queries: n };
}
