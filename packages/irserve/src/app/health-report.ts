import type { KvPool } from '../cache/kv-connection.js';
import { engineIsUp } from '../core/availability.js';
import type { Engine } from '../engines/contract.js';
import type { Federation } from '../federation/federation.js';

/**
 * Where the app is in its life, for readiness probes: `starting` until collections and engines
 * have started, `ready` while serving, `draining` once close has begun.
 */
export interface Lifecycle {
  state: 'starting' | 'ready' | 'draining';
}

/**
 * `/health`: `ready` says whether this replica should get traffic (the HTTP status is 503
 * otherwise); `status` is `degraded` while an external cache store, an imported remote or an
 * engine's back-end is unreachable (the other services still answer).
 */
export function healthReport(
  kvPool: KvPool,
  federation: Federation | undefined,
  engines: readonly { name: string; engine: Engine }[],
  lifecycle: Lifecycle,
): Record<string, unknown> {
  const stores = kvPool.health();
  const imports = federation?.health() ?? [];
  const backends = engines.flatMap(({ name, engine }): Record<string, unknown>[] =>
    engine.health ? [{ service: name, ...engine.health() }] : [],
  );
  const ok =
    stores.every((store) => store.state !== 'down') &&
    imports.every((remote) => remote.state === 'up') &&
    backends.every(engineIsUp);
  return {
    status: ok ? 'ok' : 'degraded',
    ready: lifecycle.state === 'ready',
    lifecycle: lifecycle.state,
    cache_stores: stores,
    server_imports: imports,
    ...(backends.length > 0 ? { engines: backends } : {}),
  };
}
