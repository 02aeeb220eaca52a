/** MaxP: a document scores as its best passage; the `limit` best documents. */
import type { Scores } from 'irserve/plugin';
import type { PassageHits } from '../search/plaid-search.js';

/**
 * Folds passage hits (best first) into documents through `docOf` (passage -> document id;
 * without it a passage is its own document, named by its number).
 *
 * @example maxP({ pids: [4, 2], scores: [9, 8] }, ['a', 'a', 'b', 'b', 'c'], 10) // { c: 9, b: 8 }
 */
export function maxP(
  hits: PassageHits,
  docOf: readonly string[] | undefined,
  limit: number,
): Scores {
  const ranking: Scores = Object.create(null) as Scores;
  let kept = 0;
  for (let i = 0; i < hits.pids.length && kept < limit; i++) {
    const pid = hits.pids[i]!;
    const id = docOf ? docOf[pid]! : String(pid);
    // Hits arrive best first: a document's first passage is its best.
    if (Object.hasOwn(ranking, id)) continue;
    ranking[id] = hits.scores[i]!;
    kept++;
  }
  return ranking;
}
