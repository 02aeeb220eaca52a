/**
 * PLAID search over a {@link PlaidIndex}: the four stages, returning passages best first.
 */
import type { PlaidIndex } from '../index/plaid-index.js';
import type { SearchDepth } from './depth.js';
import type { TokenMatrix } from './query.js';
import { residualMaxSim, residualTable } from './residual-scores.js';
import { approximateTop, candidates, centroidScores, keptCentroids } from './stages.js';
import { TopK } from './top-k.js';

export interface PassageHits {
  /** Passage ids (positions in the index), best first. */
  pids: number[];
  scores: number[];
}

/**
 * Searches `index` for the `k` best passages; `allowed` (one byte per passage) restricts the
 * candidates to a subset before any scoring, so a subset never starves the result.
 *
 * @example plaidSearch(index, query, depthFor(10), 10).pids
 */
export function plaidSearch(
  index: PlaidIndex,
  query: TokenMatrix,
  depth: SearchDepth,
  k: number,
  allowed?: Uint8Array,
): PassageHits {
  const qlen = query.length;
  const scores = centroidScores(index, query);
  const pool = candidates(index, scores, qlen, depth.ncells, allowed);
  const pruned = approximateTop(
    index,
    scores,
    qlen,
    pool,
    depth.ndocs,
    keptCentroids(scores, qlen, depth.centroid_score_threshold),
  );
  const finalists = approximateTop(
    index,
    scores,
    qlen,
    pruned,
    Math.max(k, Math.floor(depth.ndocs / 4)),
  );
  const table = residualTable(index.codec, query);
  const perToken = new Float32Array(qlen);
  const best = new TopK(Math.min(k, finalists.length));
  for (const pid of finalists)
    best.push(pid, residualMaxSim(index, scores, table, qlen, pid, perToken));
  const { ids, scores: exact } = best.sorted();
  return { pids: ids, scores: exact };
}
