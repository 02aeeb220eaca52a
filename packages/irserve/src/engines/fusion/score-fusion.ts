import { z } from '../../prebundled/zod.js';
import type { FuseRequest, Scores } from '../contract.js';
import { FusionRule, weightsSetting } from './fusion-rule.js';
import { rankingWeights } from './params.js';
import { addTo, emptyScores } from './rankings.js';

/**
 * CombSUM of raw scores, as RoutIR's ScoreFusion: `score(d) = sum over rankings i holding d of
 * w_i * s_i(d)`, every `w_i` 1 unless the request (or the service's config) gives `weights`, one
 * per ranking or per branch as for WeightedRRF. The scales of the inputs are not made
 * comparable; use MinMaxFusion or ZScoreFusion when they differ. No rankings give `{}`; a
 * single ranking without weights is returned unchanged.
 */
export class ScoreFusion extends FusionRule {
  static override readonly configSchema = z
    .strictObject({ weights: weightsSetting })
    .describe('Defaults for requests that send no weights.');

  fuse(given: FuseRequest): Scores {
    const request = this.withDefaults(given);
    const weights = request.weights === undefined ? undefined : rankingWeights(request);
    const total = emptyScores();
    request.rankings.forEach((ranking, index) => {
      const weight = weights?.[index] ?? 1;
      for (const [id, score] of Object.entries(ranking)) addTo(total, id, weight * score);
    });
    return total;
  }
}
