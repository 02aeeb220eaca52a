import type { FuseRequest, Scores } from '../contract.js';
import { FusionRule } from './fusion-rule.js';
import { addTo, emptyScores } from './rankings.js';

/**
 * CombSUM of raw scores, as RoutIR's ScoreFusion: `score(d) = sum over rankings i holding d of
 * s_i(d)`. The scales of the inputs are not made comparable; use MinMaxFusion or ZScoreFusion
 * when they differ. No rankings give `{}`; a single ranking is returned unchanged.
 */
export class ScoreFusion extends FusionRule {
  fuse(request: FuseRequest): Scores {
    const total = emptyScores();
    for (const ranking of request.rankings)
      for (const [id, score] of Object.entries(ranking)) addTo(total, id, score);
    return total;
  }
}
