import { z } from '../../prebundled/zod.js';
import type { FuseRequest, Scores } from '../contract.js';
import type { FusedScores } from './rankings.js';

/**
 * Base of the built-in fusion rules: a stateless `fuse` engine whose batch method fuses each
 * request on its own. The registry constructs engines with an init object; fusion rules need
 * none of it (no config, no collections), so the constructor takes nothing.
 */
export abstract class FusionRule {
  /** No settings: a rule's parameters (`rrf_k`, `weights`) come with each request. */
  static readonly configSchema = z
    .strictObject({})
    .describe('Fusion rules take no config; send rrf_k or weights with each request.');

  /** Engine contract: true exactly when `fuseBatch` exists (it always does here). */
  get canFuse(): boolean {
    return true;
  }

  /** The keys of the maps this rule returned, where it kept them (see `resultKeys`). */
  readonly #keys = new WeakMap<Scores, readonly string[]>();

  async fuseBatch(requests: FuseRequest[]): Promise<Scores[]> {
    return requests.map((request) => this.fuse(request));
  }

  /** The keys of a map this rule returned, in `Object.keys` order, when it kept them. */
  resultKeys(scores: Scores): readonly string[] | undefined {
    return this.#keys.get(scores);
  }

  /** The fused map, its keys kept for `resultKeys` when they are known. */
  protected keep(fused: FusedScores): Scores {
    const keys = fused.keys;
    if (keys !== undefined) this.#keys.set(fused.scores, keys);
    return fused.scores;
  }

  /** Fuses one request's rankings into one document id to score map. */
  abstract fuse(request: FuseRequest): Scores;
}
