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
    const documentId = documentOf(index, hits.ids[i]!);
    if (documentId in ranking) continue;
    ranking[documentId] = hits.scores[i]!;
    kept++;
  }
  return ranking;
}

/** The id of the document of `passage`; an error (never `undefined`) past the index's bounds. */
function documentOf(
  index: Pick<SparseIndexData, 'documentIds' | 'passageDocs'>,
  passage: number,
): string {
  const doc = index.passageDocs[passage];
  const id = doc === undefined ? undefined : index.documentIds.at(doc);
  if (id === undefined)
    throw new Error(`passage ${passage} has no document in the index (a damaged index)`);
  return id;
}
