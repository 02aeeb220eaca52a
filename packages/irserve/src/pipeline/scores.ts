import type { Scores } from '../engines/contract.js';

/**
 * An empty score map without a prototype, so a document id such as `__proto__` is stored like
 * any other id instead of being swallowed by `Object.prototype`.
 */
export function emptyScores(): Scores {
  return Object.create(null) as Scores;
}

/** Score order: descending score, then ascending id, so cuts are deterministic among ties. */
function byScoreThenId(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * The top `n` documents of a ranking (`%N`); the ranking itself when `n` is undefined or it has
 * at most `n` documents. Ties at the boundary keep the smaller ids.
 */
export function topN(scores: Scores, n: number | undefined): Scores {
  if (n === undefined) return scores;
  const ids = Object.keys(scores);
  if (ids.length <= n) return scores;
  // Pairs made from the keys: Object.entries takes V8's slow path on the dictionary-mode maps
  // that engines and fusion build (about twice the time of the whole cut for 200 documents).
  const entries = ids.map((id): [string, number] => [id, scores[id]!]);
  entries.sort(byScoreThenId);
  const out = emptyScores();
  for (let i = 0; i < n; i++) {
    const [id, score] = entries[i] as [string, number];
    out[id] = score;
  }
  return out;
}

/** Puts scores back on the ids they were computed for (`scores[i]` belongs to `ids[i]`). */
export function zipScores(ids: readonly string[], scores: readonly number[]): Scores {
  const out = emptyScores();
  ids.forEach((id, index) => {
    out[id] = scores[index] as number;
  });
  return out;
}
