import type { Logger } from 'pino';
import type { DeferredMetrics } from '../metrics/deferred-metrics.js';
import type { MetricsServer } from '../metrics/metrics-server.js';
import type { GrpcServerHandle } from '../transports/grpc/index.js';
import type { Assembled, Lifecycle } from './assemble.js';
import { settleCacheScopes } from './cache-scopes.js';
import { closeAll } from './close-all.js';

/** The servers `listen()` binds beside HTTP; read when close runs, so unset means never bound. */
export interface SideServers {
  grpc?: GrpcServerHandle;
  metrics?: MetricsServer;
}

/**
 * Collections, then engines in config order, the fingerprints of shared caches, then server
 * imports; `ready` once all started.
 */
export async function startAssembled(parts: Assembled): Promise<void> {
  // Offset maps and shard indexes are built (or checked) before serving, so a broken corpus
  // fails the start with its path instead of failing the first request.
  await parts.core.content.open();
  for (const { name, engine } of parts.engines) {
    try {
      await engine.start?.();
    } catch (error) {
      throw new Error(`service "${name}" failed to start: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  await settleCacheScopes(parts.engines, parts.pipelineScope);
  await parts.federation?.start();
  if (parts.lifecycle.state === 'starting') parts.lifecycle.state = 'ready';
}

export interface CloseOptions {
  logger: Logger;
  servers: SideServers;
  /** Closes the HTTP server once its in-flight requests are answered. */
  closeHttp: () => Promise<void>;
  metrics: DeferredMetrics | undefined;
  drainDelayMs: number | undefined;
}

/**
 * Drains, then closes everything in reverse order of start (engines last started first); a
 * failing step is logged and the rest still run.
 */
export function closeAssembled(parts: Assembled, options: CloseOptions): Promise<void> {
  const { servers, metrics } = options;
  return closeAll(options.logger, [
    ['drain', () => drain(parts.lifecycle, options.drainDelayMs ?? 0)],
    ['metrics server', async () => servers.metrics?.close()],
    ['grpc server', async () => servers.grpc?.close()],
    ['http server', options.closeHttp],
    ['services', () => parts.registry.close()],
    ['server imports', async () => parts.federation?.close()],
    ...parts.engines
      .toReversed()
      .map(({ name, engine }) => [`engine ${name}`, async () => engine.close?.()] as const),
    ['collections', () => parts.core.content.close()],
    ['cache stores', () => parts.kvPool.close()],
    ['metrics', async () => metrics?.close()],
  ]);
}

/** `/health` answers 503 from here on; the delay lets load balancers take the replica out first. */
async function drain(lifecycle: Lifecycle, delayMs: number): Promise<void> {
  lifecycle.state = 'draining';
  if (delayMs > 0) await new Promise((resolveDelay) => setTimeout(resolveDelay, delayMs));
}
