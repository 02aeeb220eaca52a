/**
 * A score map as a ranked list. `scores` on the wire is an object keyed by document id, and
 * JavaScript lists integer-like keys (`"358"`, `"53"`) first in ascending numeric order whatever
 * order they were written in, so anything that shows or consumes a ranking sorts explicitly.
 * Equal scores are ordered by ascending id (code-unit order), the rule the server's `%N` cuts
 * use (pipeline/scores.ts): a cut keeps exactly the documents this list puts first. Imports
 * nothing, so the playground loads it too (served at /ui/lib/core/ranked-list.js).
 */

/** One document of a ranked list; `rank` counts from 1. */
export interface RankedDoc {
  id: string;
  score: number;
  rank: number;
}

/**
 * Whether document `a` comes before `b`: a higher score, or an equal one and a smaller id.
 * A negative number when `a` ranks first (a comparator for `Array.prototype.sort`).
 */
export function compareRanked(
  a: { id: string; score: number },
  b: { id: string; score: number },
): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The documents of `scores`, best first, with their ranks; the first `limit` only when given.
 *
 * @example
 * rankedList({ '1341': 4.5, '643': 4.42, '749': 4.42 })
 * // [{ id: '1341', score: 4.5, rank: 1 }, { id: '643', score: 4.42, rank: 2 },
 * //  { id: '749', score: 4.42, rank: 3 }]
 */
export function rankedList(
  scores: Readonly<Record<string, number>>,
  limit = Infinity,
): RankedDoc[] {
  const docs = Object.keys(scores).map((id) => ({ id, score: scores[id]!, rank: 0 }));
  docs.sort(compareRanked);
  const kept = docs.length > limit ? docs.slice(0, Math.max(0, limit)) : docs;
  kept.forEach((doc, index) => (doc.rank = index + 1));
  return kept;
}
