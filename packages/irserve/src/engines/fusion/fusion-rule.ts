import type { FuseRequest, Scores } from '../contract.js';

/**
 * Base of the built-in fusion rules: a stateless `fuse` engine whose batch method fuses each
 * request on its own. The registry constructs engines with an init object; fusion rules need
 * none of it (no config, no collections), so the constructor takes nothing.
 */
export abstract class FusionRule {
  /** Engine contract: true exactly when `fuseBatch` exists (it always does here). */
  get canFuse(): boolean {
    return true;
  }

  async fuseBatch(requests: FuseRequest[]): Promise<Scores[]> {
    return requests.map((request) => this.fuse(request));
  }

  /** Fuses one request's rankings into one document id to score map. */
  abstract fuse(request: FuseRequest): Scores;
}
