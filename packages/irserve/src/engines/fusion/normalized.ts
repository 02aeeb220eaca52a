import type { FuseRequest, Scores } from '../contract.js';
import { FusionRule } from './fusion-rule.js';
import { addTo, emptyScores, extent, occurrences } from './rankings.js';

/**
 * Min-max normalisation of one ranking: `(s - min) / (max - min)`, in [0, 1]. A ranking whose
 * scores are all equal (one document included) maps every document to 1: each is its top.
 */
export function minMax(scores: Scores): Scores {
  const range = extent(scores);
  const out = emptyScores();
  if (!range) return out;
  const width = range.max - range.min;
  for (const [id, s] of Object.entries(scores)) out[id] = width > 0 ? (s - range.min) / width : 1;
  return out;
}

/**
 * Z-score normalisation of one ranking: `(s - mean) / stddev` with the population standard
 * deviation. A ranking with zero spread (one document included) maps every document to 0.
 */
export function zScore(scores: Scores): Scores {
  const values = Object.values(scores);
  const out = emptyScores();
  if (values.length === 0) return out;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  const std = Math.sqrt(variance);
  for (const [id, s] of Object.entries(scores)) out[id] = std > 0 ? (s - mean) / std : 0;
  return out;
}

function sumOf(rankings: readonly Scores[], normalise: (scores: Scores) => Scores): Scores {
  const total = emptyScores();
  for (const ranking of rankings)
    for (const [id, value] of Object.entries(normalise(ranking))) addTo(total, id, value);
  return total;
}

/**
 * CombSUM of min-max normalised scores: `score(d) = sum_i minmax_i(d)`; a document absent from
 * a ranking gets nothing from it.
 */
export class MinMaxFusion extends FusionRule {
  fuse(request: FuseRequest): Scores {
    return sumOf(request.rankings, minMax);
  }
}

/** CombSUM of z-scores: `score(d) = sum_i z_i(d)`; absent documents get nothing (0, the mean). */
export class ZScoreFusion extends FusionRule {
  fuse(request: FuseRequest): Scores {
    return sumOf(request.rankings, zScore);
  }
}

/**
 * CombMNZ (Fox and Shaw 1994) over min-max normalised scores:
 * `score(d) = (sum_i minmax_i(d)) * |{i : d in ranking i}|`, rewarding documents many inputs
 * agree on.
 */
export class CombMNZ extends FusionRule {
  fuse(request: FuseRequest): Scores {
    const sums = sumOf(request.rankings, minMax);
    const counts = occurrences(request.rankings);
    for (const id of Object.keys(sums)) sums[id] = (sums[id] ?? 0) * (counts.get(id) ?? 0);
    return sums;
  }
}
