// The numbers of the A-against-B view, without the page: per-query values of one measure for
// two pipelines of an experiment result (the `results.json` of `irserve experiment`, or one built
// here from live runs with the same code), their summary (means, wins / losses / ties, paired
// tests), and for live runs the overlap of the top k and the rank changes of shared documents.
// Rankings are made by `rankedList` (score descending, equal scores by ascending id, as the
// panes and the server's cuts): never from a score map's key order, which lists integer-like
// ids ascending.
import { rankedList } from './lib/core/ranked-list.js';
import { mean, pairedTTest, randomisationTest, winsLossesTies } from './lib/experiment/stats.js';

/**
 * One row per query of `result`: its id and text, the values of pipelines `a` and `b` on
 * `measure`, `diff` = b − a, and which of the two failed on it (a failed query scores 0).
 */
export function comparisonRows(result, a, b, measure) {
  const valuesA = result.pipelines[a].perQuery[measure];
  const valuesB = result.pipelines[b].perQuery[measure];
  const failedA = failures(result.pipelines[a]);
  const failedB = failures(result.pipelines[b]);
  return result.queries.map((query, index) => ({
    index,
    id: query.id,
    text: query.text,
    a: valuesA[index],
    b: valuesB[index],
    diff: valuesB[index] - valuesA[index],
    failedA: failedA.get(query.id),
    failedB: failedB.get(query.id),
  }));
}

function failures(pipeline) {
  return new Map((pipeline.failed ?? []).map((f) => [f.query, f.message]));
}

/**
 * B against A over every row: means, B − A, wins / losses / ties of B (within 1e-12 is a tie,
 * as in `irserve experiment`), the paired t-test and the seeded randomisation test (the
 * experiment's trials and seed), and the failed queries of each.
 */
export function comparisonSummary(rows, settings = {}) {
  const a = rows.map((row) => row.a);
  const b = rows.map((row) => row.b);
  const test = pairedTTest(a, b);
  return {
    queries: rows.length,
    meanA: mean(a),
    meanB: mean(b),
    difference: test.meanDifference,
    ...winsLossesTies(a, b),
    pT: test.p,
    pRandom: randomisationTest(a, b, { trials: settings.trials, seed: settings.seed }),
    failedA: rows.filter((row) => row.failedA !== undefined).length,
    failedB: rows.filter((row) => row.failedB !== undefined).length,
  };
}

/** How many documents the top `k` of two score maps share. */
export function overlapAt(scoresA, scoresB, k) {
  const topB = new Set(rankedList(scoresB, k).map((doc) => doc.id));
  return rankedList(scoresA, k).filter((doc) => topB.has(doc.id)).length;
}

/**
 * The top `k` of A and of B side by side: `shared` (in both: rank in A, rank in B, `delta` =
 * rank in A − rank in B, positive when B ranks it higher), best A rank first; `onlyA` and
 * `onlyB` (in one top k: its rank there, and its rank in the other's whole list or undefined
 * when the other did not retrieve it).
 */
export function rankChanges(scoresA, scoresB, k) {
  const fullA = rankOf(scoresA);
  const fullB = rankOf(scoresB);
  const topA = rankedList(scoresA, k);
  const topB = rankedList(scoresB, k);
  const inTopB = new Set(topB.map((doc) => doc.id));
  const inTopA = new Set(topA.map((doc) => doc.id));
  const shared = topA
    .filter((doc) => inTopB.has(doc.id))
    .map((doc) => {
      const rankB = fullB.get(doc.id);
      return { id: doc.id, rankA: doc.rank, rankB, delta: doc.rank - rankB };
    });
  const only = (top, inOther, otherRanks) =>
    top
      .filter((doc) => !inOther.has(doc.id))
      .map((doc) => ({ id: doc.id, rank: doc.rank, otherRank: otherRanks.get(doc.id) }));
  return { shared, onlyA: only(topA, inTopB, fullB), onlyB: only(topB, inTopA, fullA) };
}

function rankOf(scores) {
  return new Map(rankedList(scores).map((doc) => [doc.id, doc.rank]));
}

const QUERY_ID = new Intl.Collator(undefined, { numeric: true });

/**
 * `rows` sorted by `key` (`id`, `text`, `a`, `b`, `diff` or `overlap`), descending when asked;
 * equal values keep the query order. Missing values (no overlap) go last.
 */
export function sortRows(rows, key, descending) {
  const sign = descending ? -1 : 1;
  const compare = (x, y) => {
    const [u, v] = [x[key], y[key]];
    if (u === undefined || v === undefined) return (u === undefined) - (v === undefined);
    const order = typeof u === 'number' ? u - v : QUERY_ID.compare(String(u), String(v));
    return sign * order || x.index - y.index;
  };
  return [...rows].sort(compare);
}

/**
 * Checks that `value` is an experiment result (`results.json` version 1) with per-query values
 * for every pipeline and measure; returns it, or throws an Error saying what is missing.
 */
export function checkExperimentResult(value, source) {
  const problem = resultProblem(value);
  if (problem) throw new Error(`${source}: not an irserve experiment result (${problem})`);
  return value;
}

function resultProblem(value) {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  if (value.version !== 1) return `version ${JSON.stringify(value.version)}, expected 1`;
  if (!Array.isArray(value.queries) || !Array.isArray(value.pipelines))
    return 'no queries or pipelines';
  if (!Array.isArray(value.measures) || value.measures.length === 0) return 'no measures';
  for (const pipeline of value.pipelines) {
    for (const measure of value.measures) {
      const values = pipeline.perQuery?.[measure];
      if (!Array.isArray(values) || values.length !== value.queries.length)
        return `pipeline ${pipeline.name}: ${measure} per query missing or of the wrong length`;
    }
  }
  return undefined;
}
