/**
 * Retrieval metrics with trec_eval's definitions (docs/eval.md):
 *
 * - ranking: by score, descending; ties by document id, descending (trec_eval's order)
 * - nDCG@k (`ndcg_cut.k`): sum of gain / log2(rank + 1) over the top k, gain = the judged
 *   relevance (graded; 0 or less counts 0), divided by the same sum over the ideal ordering of
 *   all judged documents
 * - AP (`map`): mean, over the relevant documents (relevance >= 1), of the precision at each
 *   one's rank; unretrieved relevant documents contribute 0
 * - R@k (`recall.k`): relevant documents in the top k over all relevant documents
 *
 * Means are over the queries of the qrels (trec_eval -c): a query with no results scores 0.
 */

/** Judgements of one query: document id to relevance. */
export type Judgements = ReadonlyMap<string, number>;

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
  return Object.keys(scores).sort(
    (x, y) => scores[y]! - scores[x]! || (x < y ? 1 : x > y ? -1 : 0),
  );
}

/** nDCG at cut-off `k` of a ranking. */
export function ndcg(ranking: readonly string[], judged: Judgements, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranking.length); i++) {
    const gain = judged.get(ranking[i]!) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  }
  const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i]! / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Number of relevant (relevance >= 1) judged documents. */
export function numRelevant(judged: Judgements): number {
  let n = 0;
  for (const rel of judged.values()) if (rel >= 1) n++;
  return n;
}

/** Average precision of a ranking (over all of it). */
export function averagePrecision(ranking: readonly string[], judged: Judgements): number {
  const relevant = numRelevant(judged);
  if (relevant === 0) return 0;
  let hits = 0;
  let sum = 0;
  ranking.forEach((doc, i) => {
    if ((judged.get(doc) ?? 0) >= 1) {
      hits++;
      sum += hits / (i + 1);
    }
  });
  return sum / relevant;
}

/** Recall at cut-off `k`. */
export function recall(ranking: readonly string[], judged: Judgements, k: number): number {
  const relevant = numRelevant(judged);
  if (relevant === 0) return 0;
  let hits = 0;
  for (let i = 0; i < Math.min(k, ranking.length); i++) {
    if ((judged.get(ranking[i]!) ?? 0) >= 1) hits++;
  }
  return hits / relevant;
}

/** A measure of one query's ranking. */
export interface Measure {
  /** As printed: `nDCG@10`, `MAP`, `R@100`. */
  name: string;
  compute(ranking: readonly string[], judged: Judgements): number;
}

/** The measures `irserve eval` prints. */
export const DEFAULT_MEASURES: readonly Measure[] = [
  { name: 'nDCG@10', compute: (r, j) => ndcg(r, j, 10) },
  { name: 'MAP', compute: averagePrecision },
  { name: 'R@100', compute: (r, j) => recall(r, j, 100) },
  { name: 'R@1000', compute: (r, j) => recall(r, j, 1000) },
];

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
 * evaluate(new Map([['q1', { d1: 2, d2: 1 }]]), new Map([['q1', new Map([['d2', 1]])]])).mean['MAP'] // 0.5
 */
export function evaluate(
  run: Run,
  qrels: Qrels,
  measures: readonly Measure[] = DEFAULT_MEASURES,
): Evaluation {
  const perQuery = new Map<string, Record<string, number>>();
  const sums: Record<string, number> = Object.fromEntries(measures.map((m) => [m.name, 0]));
  for (const [query, judged] of qrels) {
    const ranking = rankDocuments(run.get(query) ?? {});
    const values: Record<string, number> = {};
    for (const measure of measures) {
      values[measure.name] = measure.compute(ranking, judged);
      sums[measure.name]! += values[measure.name]!;
    }
    perQuery.set(query, values);
  }
  const n = qrels.size;
  const mean = Object.fromEntries(measures.map((m) => [m.name, n > 0 ? sums[m.name]! / n : 0]));
  return { mean, perQuery, queries: n };
}
