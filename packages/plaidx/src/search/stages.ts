/**
 * PLAID's first three stages (Santhanam et al., 2022): centroid scores per query token,
 * candidate passages from the IVF cells nearest each token, and centroid-only ("approximate")
 * scores that keep the most promising candidates before any residual is decoded.
 */
import { dot } from '@irserve/dense';
import type { PlaidIndex } from '../index/plaid-index.js';
import type { TokenMatrix } from './query.js';
import { TopK } from './top-k.js';

/** Score of every centroid for every query token, at `c * query.length + t`. */
export function centroidScores(index: PlaidIndex, query: TokenMatrix): Float32Array {
  const { numCentroids, centroids, dim } = index;
  const qlen = query.length;
  const scores = new Float32Array(numCentroids * qlen);
  for (let c = 0; c < numCentroids; c++) {
    for (let t = 0; t < qlen; t++)
      scores[c * qlen + t] = dot(centroids, c * dim, query.vectors, t * dim, dim);
  }
  return scores;
}

/**
 * Stage 1: the passages listed under the `ncells` best centroids of each query token,
 * restricted to `allowed` passages when given (a subset).
 */
export function candidates(
  index: PlaidIndex,
  scores: Float32Array,
  qlen: number,
  ncells: number,
  allowed?: Uint8Array,
): Int32Array {
  const cells = new Set<number>();
  for (let t = 0; t < qlen; t++) {
    const best = new TopK(Math.min(ncells, index.numCentroids));
    for (let c = 0; c < index.numCentroids; c++) best.push(c, scores[c * qlen + t]!);
    for (let i = 0; i < best.size; i++) cells.add(best.ids[i]!);
  }
  const seen = new Uint8Array(index.numPassages);
  const out: number[] = [];
  for (const cell of cells) {
    for (let i = index.ivfOffsets[cell]!; i < index.ivfOffsets[cell + 1]!; i++) {
      const pid = index.ivfPids[i]!;
      if (seen[pid] || (allowed && !allowed[pid])) continue;
      seen[pid] = 1;
      out.push(pid);
    }
  }
  return Int32Array.from(out);
}

/** Centroids whose best score over the query tokens reaches `threshold` (stage 2's pruning). */
export function keptCentroids(scores: Float32Array, qlen: number, threshold: number): Uint8Array {
  const kept = new Uint8Array(scores.length / qlen);
  for (let c = 0; c < kept.length; c++) {
    for (let t = 0; t < qlen; t++) {
      if (scores[c * qlen + t]! >= threshold) {
        kept[c] = 1;
        break;
      }
    }
  }
  return kept;
}

/**
 * Stages 2 and 3: each passage's MaxSim with its tokens replaced by their centroids (tokens
 * of pruned centroids skipped when `kept` is given); the best `n` passages.
 */
export function approximateTop(
  index: PlaidIndex,
  scores: Float32Array,
  qlen: number,
  pids: ArrayLike<number>,
  n: number,
  kept?: Uint8Array,
): Int32Array {
  const best = new TopK(Math.min(n, pids.length));
  const perToken = new Float32Array(qlen);
  for (let i = 0; i < pids.length; i++) {
    const pid = pids[i]!;
    // ColBERT's filter starts each token's maximum at -9999: a passage whose every token
    // was pruned ranks last instead of being dropped.
    perToken.fill(-9999);
    for (let e = index.docOffsets[pid]!; e < index.docOffsets[pid + 1]!; e++) {
      const code = index.codes[e]!;
      if (kept && !kept[code]) continue;
      const row = code * qlen;
      for (let t = 0; t < qlen; t++)
        if (scores[row + t]! > perToken[t]!) perToken[t] = scores[row + t]!;
    }
    let total = 0;
    for (let t = 0; t < qlen; t++) total += perToken[t]!;
    best.push(pid, total);
  }
  return Int32Array.from(best.sorted().ids);
}
