import type { FuseRequest, Scores } from '../contract.js';
import { z } from '../../prebundled/zod.js';
import { FusionRule, rrfKSetting, weightsSetting } from './fusion-rule.js';
import { nonNegativeNumber, rankingWeights } from './params.js';
import { FusedScores, forEachRank, rankingKeys } from './rankings.js';

/** The usual RRF constant (Cormack et al. 2009). RoutIR's default of 0 over-rewards rank 1. */
export const DEFAULT_RRF_K = 60;

/**
 * Reciprocal rank fusion: `score(d) = sum over rankings i holding d of 1 / (k + rank_i(d))`,
 * ranks from 1 by descending score, ties sharing the best rank. `rrf_k` (>= 0) overrides k = 60.
 * Raw scores only decide the ranks. No rankings, or only empty ones, give `{}`. A service of
 * this engine may set `rrf_k` in its config for the requests that send none.
 *
 * @example fuse({ rankings: [{ a: 3, b: 2 }, { b: 9 }] }) // { a: 1/61, b: 1/62 + 1/61 }
 */
export class RRF extends FusionRule {
  static override readonly configSchema = z
    .strictObject({ rrf_k: rrfKSetting })
    .describe('Defaults for requests that send no rrf_k.');

  fuse(given: FuseRequest): Scores {
    const request = this.withDefaults(given);
    const k = nonNegativeNumber(request, 'rrf_k', DEFAULT_RRF_K);
    return this.keep(reciprocalRanks(request, k, undefined));
  }
}

/**
 * Weighted reciprocal rank fusion: `score(d) = sum_i w_i / (k + rank_i(d))`. `weights` gives one
 * non-negative weight per ranking (per branch in a pipeline); absent, every weight is 1 and the
 * result equals RRF. `rrf_k` as for RRF. A service of this engine may set `weights` and `rrf_k`
 * in its config for the requests that send none (`irserve tune` writes such a service).
 */
export class WeightedRRF extends FusionRule {
  static override readonly configSchema = z
    .strictObject({ rrf_k: rrfKSetting, weights: weightsSetting })
    .describe('Defaults for requests that send no rrf_k or weights.');

  fuse(given: FuseRequest): Scores {
    const request = this.withDefaults(given);
    const k = nonNegativeNumber(request, 'rrf_k', DEFAULT_RRF_K);
    return this.keep(reciprocalRanks(request, k, rankingWeights(request)));
  }
}

function reciprocalRanks(
  request: FuseRequest,
  k: number,
  weights: readonly number[] | undefined,
): FusedScores {
  const { rankings } = request;
  const keys = rankingKeys(request);
  const total = new FusedScores();
  for (let index = 0; index < rankings.length; index++) {
    const weight = weights?.[index] ?? 1;
    // k = 0 with rank >= 1 never divides by zero. Ranks visited, not collected in a Map.
    const add = (id: string, rank: number) => total.add(id, weight / (k + rank));
    forEachRank(rankings[index]!, add, keys[index]);
  }
  return total;
}
