/**
 * PLAID's first three stages (Santhanam et al., 2022): centroid scores per query token,
 * candidate passages from the IVF cells nearest each token, and centroid-only ("approximate")
 * scores that keep the most promising candidates before any residual is decoded.
 */
import type { PlaidIndex } from '../index/plaid-index.js';
import { dotRows } from './dots.js';
import type { TokenMatrix } from './query.js';
import { TopK } from './top-k.js';

/** Score of every centroid for every query token, at `c * query.length + t`. */
export function centroidScores(index: PlaidIndex, query: TokenMatrix): Float32Array {
  const scores = new Float32Array(index.numCentroids * query.length);
  dotRows(index.centroids, 0, index.numCentroids, query.vectors, query.length, index.dim, scores);
  return scores;
}

/**
 * The `ncells` best centroids of each query token, without repeats. One pass over the score
 * matrix in memory order, keeping a small sorted list per token (ncells is 1 to a few).
 *
 * @example bestCells(scores, 32, 4096, 2) // up to 64 distinct centroid numbers
 */
export function bestCells(
  scores: Float32Array,
  qlen: number,
  numCentroids: number,
  ncells: number,
): Int32Array {
  const n = Math.max(0, Math.min(ncells, numCentroids));
  const ids = new Int32Array(qlen * n).fill(-1);
  const best = new Float32Array(qlen * n).fill(-Infinity);
  for (let c = 0; c < numCentroids; c++) {
    const row = c * qlen;
    for (let t = 0; t < qlen; t++) {
      const s = scores[row + t]!;
      const base = t * n;
      if (n === 0 || s <= best[base + n - 1]!) continue;
      let i = n - 1;
      for (; i > 0 && best[base + i - 1]! < s; i--) {
        best[base + i] = best[base + i - 1]!;
        ids[base + i] = ids[base + i - 1]!;
      }
      best[base + i] = s;
      ids[base + i] = c;
    }
  }
  const seen = new Uint8Array(numCentroids);
  const cells: number[] = [];
  for (const c of ids) {
    if (c < 0 || seen[c]) continue;
    seen[c] = 1;
    cells.push(c);
  }
  return Int32Array.from(cells);
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
  const { ivfOffsets, ivfPids } = index;
  const cells = bestCells(scores, qlen, index.numCentroids, ncells);
  let bound = 0;
  for (const cell of cells) bound += ivfOffsets[cell + 1]! - ivfOffsets[cell]!;
  const out = new Int32Array(Math.min(bound, index.numPassages));
  const seen = new Uint8Array(index.numPassages);
  let size = 0;
  for (const cell of cells) {
    const end = ivfOffsets[cell + 1]!;
    for (let i = ivfOffsets[cell]!; i < end; i++) {
      const pid = ivfPids[i]!;
      if (seen[pid] || (allowed && !allowed[pid])) continue;
      seen[pid] = 1;
      out[size++] = pid;
    }
  }
  return out.subarray(0, size);
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
    for (const code of index.tokens.codes(pid)) {
      if (kept && !kept[code]) continue;
      const row = code * qlen;
      for (let t = 0; t < qlen; t++) {
        const s = scores[row + t]!;
        if (s > perToken[t]!) perToken[t] = s;
      }
    }
    let total = 0;
    for (let t = 0; t < qlen; t++) total += perToken[t]!;
    best.push(pid, total);
  }
  return Int32Array.from(best.sorted().ids);
}
