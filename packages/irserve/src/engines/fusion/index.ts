import type { EngineClass } from '../contract.js';
import { Borda } from './borda.js';
import { CombMNZ, MinMaxFusion, ZScoreFusion } from './normalized.js';
import { RRF, WeightedRRF } from './rrf.js';
import { ScoreFusion } from './score-fusion.js';

export { Borda } from './borda.js';
export { CombMNZ, MinMaxFusion, ZScoreFusion, minMax, zScore } from './normalized.js';
export { DEFAULT_RRF_K, RRF, WeightedRRF } from './rrf.js';
export { ScoreFusion } from './score-fusion.js';
export { FusionRule } from './fusion-rule.js';
export { ranksOf } from './rankings.js';

/** The built-in fusion rules, registered as `fuse` services under their class names. */
export const FUSION_ENGINES: readonly EngineClass[] = [
  RRF,
  ScoreFusion,
  CombMNZ,
  MinMaxFusion,
  ZScoreFusion,
  WeightedRRF,
  Borda,
];

/**
 * The built-in rules whose scores are finite numbers whatever the (checked) rankings hold: they
 * add terms of ranks, never raw scores (RRF, weighted RRF, Borda). Their results need no check;
 * the score-based rules can make NaN of infinite inputs and keep theirs.
 */
export const RANK_FUSION_ENGINES: ReadonlySet<EngineClass> = new Set([RRF, WeightedRRF, Borda]);
