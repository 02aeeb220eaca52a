/**
 * The fingerprints of shared caches (DESIGN section 4): once its engine has started, each
 * service whose cache lives in an external store gets the fingerprint of its engine, config
 * and what the engine opened (`cacheIdentity`); an external pipeline cache gets the combined
 * fingerprint of every configured service. Nothing is computed for in-memory caches.
 */
import { KeyScope } from '../cache/key-scope.js';
import { combinedFingerprint, serviceFingerprint } from '../cache/service-fingerprint.js';
import type { Engine } from '../engines/contract.js';

/** A configured service's key scope and what its fingerprint is made of. */
export interface ServiceScope {
  scope: KeyScope;
  /** The engine class name and the service's engine config. */
  engine: string;
  config: Record<string, unknown>;
  /** Whether one of the service's stores is external (its keys need the fingerprint). */
  shared: boolean;
}

/** An engine of the app, with the scope of its configured service (fusion rules have none). */
export interface ScopedEngine {
  name: string;
  engine: Engine;
  cacheScope?: ServiceScope;
}

/**
 * Settles the scopes of the started engines' services, and the pipeline cache's when it is
 * external (`pipeline`).
 *
 * @example await settleCacheScopes(parts.engines, parts.pipelineScope);
 */
export async function settleCacheScopes(
  engines: readonly ScopedEngine[],
  pipeline: KeyScope | undefined,
): Promise<void> {
  const fingerprints: [string, string][] = [];
  for (const { name, engine, cacheScope } of engines) {
    if (cacheScope === undefined || (!cacheScope.shared && pipeline === undefined)) continue;
    const identity = await Promise.resolve(engine.cacheIdentity?.()).catch((error: unknown) => {
      throw new Error(
        `service "${name}" failed to tell what it opened (cacheIdentity): ${(error as Error).message}`,
        { cause: error },
      );
    });
    const fingerprint = serviceFingerprint({ ...cacheScope, identity });
    cacheScope.scope.settle(fingerprint);
    fingerprints.push([name, fingerprint]);
  }
  pipeline?.settle(combinedFingerprint(fingerprints));
}

/** A new scope for a configured service. */
export function serviceScope(
  engine: string,
  config: Record<string, unknown>,
  shared: boolean,
): ServiceScope {
  return { scope: new KeyScope(), engine, config, shared };
}
