/** MaxP: a document scores as its best passage; passages arrive best first. */
import type { Scores } from 'irserve/plugin';
import type { SparseIndexData } from '../index/types.js';
import type { PassageHits } from '../search/types.js';

/**
 * The first `limit` documents of `hits` (passages best first), each with its best score.
 *
 * @example maxP(index, hits, 10) // { D12: 1830, D7: 1644, ... }
 */
export function maxP(
  index: Pick<SparseIndexData, 'documentIds' | 'passageDocs'>,
  hits: PassageHits,
  limit: number,
): Scores {
  const ranking: Scores = Object.create(null) as Scores;
  let kept = 0;
  for (let i = 0; i < hits.ids.length && kept < limit; i++) {
    const documentId = index.documentIds.at(index.passageDocs[hits.ids[i]!]!)!;
    if (documentId in ranking) continue;
    ranking[documentId] = hits.scores[i]!;
    kept++;
  }
  return ranking;
}
