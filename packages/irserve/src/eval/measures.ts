/**
 * One query's value of a measure (measure-name.ts), with trec_eval's definitions (docs/experiments.md):
 *
 * - the ranking: score descending, equal scores by document id descending (trec_eval sorts so);
 *   `Judged` alone ranks equal scores by ascending id, as ir_measures' own implementation does
 * - a document is relevant when judged with a grade >= `rel` (default 1); negative grades count
 *   as judged-but-unassessed (never relevant, gain 0), as in trec_eval
 * - nDCG: Σ gain / log2(rank + 1) over the top k, gain = the grade (or its `gains` entry), only
 *   positive gains; over the same sum for the ideal ordering of every judged document
 * - P@k: relevant in the top k over k (fewer retrieved still divides by k)
 * - R@k: relevant in the top k over all relevant; AP(@k): Σ precision at each relevant rank
 *   (within k) over all relevant; RR(@k): 1 / rank of the first relevant (within k);
 *   Success@k: 1 when one is in the top k. A query with no relevant document scores 0 on each.
 * - Judged(@k): judged documents among the top min(k, retrieved) over that number (0 for none)
 * - judged_only: unjudged documents leave the ranking before measuring (trec_eval -J)
 */
import type { MeasureSpec } from './measure-name.js';

/** Judgements of one query: document id to relevance. */
export type Judgements = ReadonlyMap<string, number>;

/** One query's scores, with its two rankings made once each, on first use. */
export class RankedQuery {
  readonly scores: Readonly<Record<string, number>>;
  #trec: string[] | undefined;
  #idAscending: string[] | undefined;

  constructor(scores: Readonly<Record<string, number>>) {
    this.scores = scores;
  }

  /** Score descending, equal scores by id descending (trec_eval). */
  trecOrder(): readonly string[] {
    this.#trec ??= order(this.scores, -1);
    return this.#trec;
  }

  /** Score descending, equal scores by id ascending (ir_measures' Judged, the server's cuts). */
  idAscendingOrder(): readonly string[] {
    this.#idAscending ??= order(this.scores, 1);
    return this.#idAscending;
  }
}

function order(scores: Readonly<Record<string, number>>, tieSign: 1 | -1): string[] {
  return Object.keys(scores).sort(
    (x, y) => scores[y]! - scores[x]! || (x < y ? -tieSign : x > y ? tieSign : 0),
  );
}

/** The value of `spec` for one query. */
export function computeMeasure(spec: MeasureSpec, query: RankedQuery, judged: Judgements): number {
  if (spec.family === 'Judged') return judgedRate(query.idAscendingOrder(), judged, spec.cutoff);
  let ranking = query.trecOrder();
  if (spec.judgedOnly) ranking = ranking.filter((doc) => (judged.get(doc) ?? -1) >= 0);
  switch (spec.family) {
    case 'nDCG':
      return ndcgAt(ranking, judged, spec.cutoff, spec.gains);
    case 'P':
      return relevantIn(ranking, judged, spec.cutoff!, spec.rel) / spec.cutoff!;
    case 'R':
      return ratio(
        relevantIn(ranking, judged, spec.cutoff!, spec.rel),
        numRelevant(judged, spec.rel),
      );
    case 'AP':
      return averagePrecisionAt(ranking, judged, spec.cutoff, spec.rel);
    case 'RR':
      return reciprocalRankAt(ranking, judged, spec.cutoff, spec.rel);
    case 'Success':
      return relevantIn(ranking, judged, spec.cutoff!, spec.rel) > 0 ? 1 : 0;
  }
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

function isRelevant(judged: Judgements, doc: string, rel: number): boolean {
  const grade = judged.get(doc);
  return grade !== undefined && grade >= 0 && grade >= rel;
}

/** Judged documents with a grade >= max(rel, 0) (trec_eval's num_rel). */
export function numRelevant(judged: Judgements, rel = 1): number {
  let n = 0;
  for (const grade of judged.values()) if (grade >= 0 && grade >= rel) n++;
  return n;
}

/** Relevant documents among the first `k` of the ranking. */
export function relevantIn(
  ranking: readonly string[],
  judged: Judgements,
  k: number,
  rel = 1,
): number {
  let hits = 0;
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) if (isRelevant(judged, ranking[i]!, rel)) hits++;
  return hits;
}

/** nDCG over the first `k` (all when undefined); `gains` maps grades to gains. */
export function ndcgAt(
  ranking: readonly string[],
  judged: Judgements,
  k = Infinity,
  gains?: ReadonlyMap<number, number>,
): number {
  const gainOf = (grade: number) => (grade < 0 ? 0 : (gains?.get(grade) ?? grade));
  let dcg = 0;
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) {
    const grade = judged.get(ranking[i]!);
    const gain = grade === undefined ? 0 : gainOf(grade);
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  }
  const ideal = [...judged.values()].map(gainOf).filter((gain) => gain > 0);
  ideal.sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i]! / Math.log2(i + 2);
  return ratio(dcg, idcg);
}

/** Average precision over the first `k` (all when undefined), divided by every relevant one. */
export function averagePrecisionAt(
  ranking: readonly string[],
  judged: Judgements,
  k = Infinity,
  rel = 1,
): number {
  let hits = 0;
  let sum = 0;
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) {
    if (isRelevant(judged, ranking[i]!, rel)) sum += ++hits / (i + 1);
  }
  return ratio(sum, numRelevant(judged, rel));
}

/** 1 / rank of the first relevant document within the first `k`; 0 when there is none. */
export function reciprocalRankAt(
  ranking: readonly string[],
  judged: Judgements,
  k = Infinity,
  rel = 1,
): number {
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) if (isRelevant(judged, ranking[i]!, rel)) return 1 / (i + 1);
  return 0;
}

/** Judged documents (any grade) among the top min(k, retrieved), over that number. */
export function judgedRate(ranking: readonly string[], judged: Judgements, k = Infinity): number {
  const end = Math.min(k, ranking.length);
  let count = 0;
  for (let i = 0; i < end; i++) if (judged.has(ranking[i]!)) count++;
  return ratio(count, end);
}
