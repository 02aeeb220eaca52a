import type { FuseRequest, Scores } from '../contract.js';
import { FusionRule } from './fusion-rule.js';
import { FusedScores, rankingKeys, ranksOf } from './rankings.js';

/**
 * Borda count: in a ranking of n documents, the document at rank r (from 1, ties sharing the
 * best rank) gets `n - r + 1` points; `score(d) = sum of its points`. A document absent from a
 * ranking gets 0 points from it. Raw scores only decide the ranks.
 */
export class Borda extends FusionRule {
  fuse(request: FuseRequest): Scores {
    const total = new FusedScores();
    const keys = rankingKeys(request);
    for (let index = 0; index < request.rankings.length; index++) {
      const ranks = ranksOf(request.rankings[index]!, keys[index]);
      for (const [id, rank] of ranks) total.add(id, ranks.size - rank + 1);
    }
    return this.keep(total);
  }
}
