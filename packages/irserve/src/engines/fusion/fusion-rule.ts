import { z } from '../../prebundled/zod.js';
import type { FuseRequest, Scores } from '../contract.js';
import type { FusedScores } from './rankings.js';

/** `rrf_k` in a fusion service's config: the k every request gets unless it sends its own. */
export const rrfKSetting = z
  .number({ error: 'must be a non-negative number' })
  .nonnegative('must be a non-negative number')
  .finite('must be a non-negative number')
  .optional()
  .describe('RRF constant k for requests that send no rrf_k (default 60)');

/** `weights` in a fusion service's config: one per ranking (per branch in a pipeline). */
export const weightsSetting = z
  .array(z.number().nonnegative().finite(), { error: 'must be an array of non-negative numbers' })
  .optional()
  .describe('one weight per ranking (per branch in a pipeline) for requests that send none');

/**
 * Base of the built-in fusion rules: a stateless `fuse` engine whose batch method fuses each
 * request on its own. A rule's parameters (`rrf_k`, `weights`) come with each request; a
 * service declared in the config with a rule as its engine may set them in its `config`, as
 * defaults for requests that send none (that is how tuned weights become a pipeline alias:
 * docs/experiments.md). The built-in services under the class names have none.
 *
 * @example
 * // config: { "name": "tuned", "engine": "WeightedRRF", "config": { "weights": [0.7, 0.3] } }
 */
export abstract class FusionRule {
  /** No settings by default; the rules with parameters declare theirs (rrf_k, weights). */
  static readonly configSchema: z.ZodType = z
    .strictObject({})
    .describe('This fusion rule takes no config.');

  /** The service's config: parameter defaults (already checked against `configSchema`). */
  readonly #defaults: Readonly<Record<string, unknown>>;

  constructor(init?: { config?: Record<string, unknown> }) {
    this.#defaults = init?.config ?? {};
  }

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

  /** The request with the service's defaults for the parameters it does not send. */
  protected withDefaults(request: FuseRequest): FuseRequest {
    let merged: FuseRequest | undefined;
    for (const key in this.#defaults) {
      if (request[key] !== undefined) continue;
      merged ??= { ...request };
      merged[key] = this.#defaults[key];
    }
    return merged ?? request;
  }

  /** Fuses one request's rankings into one document id to score map. */
  abstract fuse(request: FuseRequest): Scores;
}
