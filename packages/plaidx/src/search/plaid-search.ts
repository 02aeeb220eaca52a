/**
 * PLAID search over a {@link PlaidIndex}: the four stages, returning passages best first.
 */
import type { PlaidIndex } from '../index/plaid-index.js';
import type { SearchDepth } from './depth.js';
import type { TokenMatrix } from './query.js';
import { ResidualScorer } from './residual-scores.js';
import { approximateTop, candidates, centroidScores, keptCentroids } from './stages.js';
import { TopK } from './top-k.js';

export interface PassageHits {
  /** Passage ids (positions in the index), best first. */
  pids: number[];
  scores: number[];
}

/** What each stage did, accumulated over searches (for profiling; see bench/plaidx.mjs). */
export interface SearchStats {
  searches: number;
  /** Passages from the IVF cells (stage 1), after pruning (stage 2) and scored exactly (4). */
  candidates: number;
  pruned: number;
  finalists: number;
  /** Milliseconds in centroid scoring, candidate generation, stages 2-3, stage 4. */
  ms: { centroids: number; candidates: number; filter: number; exact: number };
}

/** A zeroed {@link SearchStats} to pass to {@link plaidSearch}. */
export function emptyStats(): SearchStats {
  return {
    searches: 0,
    candidates: 0,
    pruned: 0,
    finalists: 0,
    ms: { centroids: 0, candidates: 0, filter: 0, exact: 0 },
  };
}

/**
 * Searches `index` for the `k` best passages; `allowed` (one byte per passage) restricts the
 * candidates to a subset before any scoring, so a subset never starves the result. `stats`,
 * when given, accumulates each stage's counts and time.
 *
 * @example plaidSearch(index, query, depthFor(10), 10).pids
 */
export function plaidSearch(
  index: PlaidIndex,
  query: TokenMatrix,
  depth: SearchDepth,
  k: number,
  allowed?: Uint8Array,
  stats?: SearchStats,
): PassageHits {
  const qlen = query.length;
  const clock = stats ? () => performance.now() : () => 0;
  const t0 = clock();
  const scores = centroidScores(index, query);
  const t1 = clock();
  const pool = candidates(index, scores, qlen, depth.ncells, allowed);
  const t2 = clock();
  const kept = keptCentroids(scores, qlen, depth.centroid_score_threshold);
  const pruned = approximateTop(index, scores, qlen, pool, depth.ndocs, kept);
  const finalists = approximateTop(
    index,
    scores,
    qlen,
    pruned,
    Math.max(k, Math.floor(depth.ndocs / 4)),
  );
  const t3 = clock();
  const scorer = new ResidualScorer(index, query, scores);
  const best = new TopK(Math.min(k, finalists.length));
  for (const pid of finalists) best.push(pid, scorer.maxSim(pid));
  const { ids, scores: exact } = best.sorted();
  if (stats) {
    stats.searches++;
    stats.candidates += pool.length;
    stats.pruned += pruned.length;
    stats.finalists += finalists.length;
    stats.ms.centroids += t1 - t0;
    stats.ms.candidates += t2 - t1;
    stats.ms.filter += t3 - t2;
    stats.ms.exact += clock() - t3;
  }
  return { pids: ids, scores: exact };
}
