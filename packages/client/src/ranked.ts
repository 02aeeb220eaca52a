/**
 * Ranked lists from score maps. `scores` on the wire is an object keyed by document id, and
 * JavaScript lists integer-like keys (`"358"`, `"53"`) first, in ascending numeric order, so
 * `Object.entries(result.scores)` of Cranfield or MS MARCO ids is not a ranking. Every answer
 * that carries such a map also carries `ranked`: its documents best first. Equal scores come in
 * ascending id order (code-unit order), the rule irserve's `%N` cuts use, so the first k of a
 * ranked list are the documents a cut at k keeps.
 */

/** One document of a ranked list; `rank` counts from 1. */
export interface RankedDoc {
  id: string;
  score: number;
  rank: number;
}

/** An answer as the server sent it, plus `ranked`: its `scores` best first. */
export type Ranked<T> = T & { ranked: RankedDoc[] };

/**
 * The documents of a score map, best first, with their ranks.
 *
 * @example
 * rankScores({ '643': 4.42, '749': 4.37, '1341': 4.5 }).map((d) => d.id) // ['1341', '643', '749']
 */
export function rankScores(scores: Readonly<Record<string, number>>): RankedDoc[] {
  const docs = Object.keys(scores).map((id) => ({ id, score: scores[id]!, rank: 0 }));
  docs.sort((a, b) =>
    a.score !== b.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  docs.forEach((doc, index) => (doc.rank = index + 1));
  return docs;
}

/** `answer` with `ranked` added when its `scores` is a score map (left as is otherwise). */
export function withRanked<T>(answer: T): Ranked<T> {
  const scores = (answer as { scores?: unknown }).scores;
  if (scores === null || typeof scores !== 'object' || Array.isArray(scores))
    return answer as Ranked<T>;
  return { ...answer, ranked: rankScores(scores as Record<string, number>) };
}
