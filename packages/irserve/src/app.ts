import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { pino } from './prebundled/pino.js';
import { assemble } from './app/assemble.js';
import { closeAll } from './app/close-all.js';
import type { IrserveConfig } from './config/schema.js';
import { validateConfig } from './config/load.js';
import type { AppCore } from './core/app-core.js';
import type { EngineClass } from './engines/contract.js';
import type { MetricsServer } from './metrics/metrics-server.js';
import { deferredMetrics, type DeferredMetrics } from './metrics/deferred-metrics.js';
import type { GrpcServerHandle } from './transports/grpc/index.js';
import { drainingClose } from './transports/http/close-http.js';

export interface AppOptions {
  /** Logger to use; default: pino at `info` to stdout. */
  logger?: Logger;
  /** Directory for indexes and sidecars; default: `cache_dir` of the config, else `.irserve-cache` beside it. */
  cacheDir?: string;
  /** Directory that relative paths in the config resolve against; default: the working directory. */
  configDir?: string;
  /** Extra engine classes (besides built-ins and `file_imports`). */
  engines?: EngineClass[];
  /** Register the engines of installed `@irserve/*` extras (default true). */
  extras?: boolean;
  /** Bearer token; undefined means requests need no credentials. */
  apiKey?: string;
  /** Draw progress bars (default: whether stderr is a terminal). */
  interactive?: boolean;
  /** Environment for `api_key_env` lookups (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Also serve gRPC (`routir.v1.Routir`) from `listen()`; host defaults to the HTTP host. */
  grpc?: { port: number; host?: string; maxMessageMb?: number };
  /** Overrides the config's `metrics.port` / `metrics.host` (the CLI's `--metrics_port`). */
  metrics?: { port?: number; host?: string };
  /**
   * On close, how long `/health` answers 503 (draining) before the listeners stop accepting
   * connections, so load balancers take the replica out first; default 0. The CLI reads
   * `IRSERVE_DRAIN_DELAY` (seconds).
   */
  drainDelayMs?: number;
}

export interface App {
  readonly config: IrserveConfig;
  readonly core: AppCore;
  /** The Fastify server (use `.inject()` in tests). */
  readonly http: FastifyInstance;
  readonly logger: Logger;
  /** Starts engines (index builds, model loads) and imports remote services; idempotent. */
  start(): Promise<void>;
  /** Starts, then listens; logs one "irserve listening on ..." line; resolves with the HTTP address. */
  listen(options: { port: number; host: string }): Promise<string>;
  /** Addresses bound by `listen` (gRPC and the metrics port when configured). */
  readonly addresses: { http?: string; grpc?: string; metrics?: string };
  /** Drains in-flight requests and closes everything in reverse order; idempotent. */
  close(): Promise<void>;
}

/**
 * Builds an app from a config object: validated, wired, not yet started. Two apps can live in
 * one process; nothing is shared between them.
 *
 * @example
 * const app = await createApp(config, { configDir: '.' });
 * await app.listen({ port: 8000, host: '127.0.0.1' });
 */
export async function createApp(input: unknown, options: AppOptions = {}): Promise<App> {
  const config = validateConfig(input);
  const configDir = resolve(options.configDir ?? '.');
  const logger = options.logger ?? pino({ level: 'info' });
  let grpc: GrpcServerHandle | undefined;
  let metricsServer: MetricsServer | undefined;
  const metricsPort = options.metrics?.port ?? config.metrics.port;
  const metrics = config.metrics.enabled ? deferredMetrics(loadMetrics) : undefined;
  const addresses: App['addresses'] = {};
  const parts = await assemble(config, {
    logger,
    configDir,
    cacheDir: resolve(configDir, options.cacheDir ?? config.cache_dir ?? '.irserve-cache'),
    interactive: options.interactive ?? Boolean(process.stderr.isTTY),
    engines: options.engines ?? [],
    extras: options.extras ?? true,
    apiKey: options.apiKey,
    env: options.env ?? process.env,
    // `/avail` advertises the gRPC port once the gRPC server is bound.
    availExtras: () => (grpc ? { grpc_port: grpc.port } : {}),
    metrics: metrics && { metrics, route: metricsPort === undefined },
  });
  const { http, engines } = parts;
  const closeHttp = drainingClose(http);
  let starting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const start = () =>
    (starting ??= (async () => {
      // Offset maps and shard indexes are built (or checked) before serving, so a broken corpus
      // fails the start with its path instead of failing the first request.
      await parts.core.content.open();
      for (const { name, engine } of engines) {
        try {
          await engine.start?.();
        } catch (error) {
          throw new Error(`service "${name}" failed to start: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }
      await parts.federation?.start();
      if (parts.lifecycle.state === 'starting') parts.lifecycle.state = 'ready';
    })());
  const drain = async () => {
    parts.lifecycle.state = 'draining';
    const delay = options.drainDelayMs ?? 0;
    if (delay > 0) await new Promise((resolveDelay) => setTimeout(resolveDelay, delay));
  };
  const close = () =>
    (closing ??= closeAll(logger, [
      ['drain', drain],
      ['metrics server', async () => metricsServer?.close()],
      ['grpc server', async () => grpc?.close()],
      ['http server', closeHttp],
      ['services', () => parts.registry.close()],
      ['server imports', async () => parts.federation?.close()],
      ...engines
        .toReversed()
        .map(({ name, engine }) => [`engine ${name}`, async () => engine.close?.()] as const),
      ['collections', () => parts.core.content.close()],
      ['cache stores', () => parts.kvPool.close()],
      ['metrics', async () => metrics?.close()],
    ]));
  return {
    config,
    core: parts.core,
    http,
    logger,
    start,
    addresses,
    async listen({ port, host }) {
      await start();
      if (options.grpc && !grpc) {
        // Bound before HTTP so that the first `/avail` already advertises it; loaded only here.
        const { startGrpcServer } = await import('./transports/grpc/index.js');
        grpc = await startGrpcServer(parts.core, {
          port: options.grpc.port,
          host: options.grpc.host ?? host,
          apiKey: options.apiKey,
          logger,
          ...(metrics ? { metrics } : {}),
          ...(options.grpc.maxMessageMb ? { maxMessageMb: options.grpc.maxMessageMb } : {}),
        });
        addresses.grpc = `${options.grpc.host ?? host}:${grpc.port}`;
      }
      if (metrics && metricsPort !== undefined && !metricsServer) {
        const { startMetricsServer } = await import('./metrics/metrics-server.js');
        metricsServer = await startMetricsServer(metrics, {
          port: metricsPort,
          host: options.metrics?.host ?? config.metrics.host ?? host,
        });
        addresses.metrics = `${metricsServer.address}/metrics`;
      }
      const address = await http.listen({
        port,
        host,
        listenTextResolver: (address) => {
          addresses.http = address;
          return listeningLine(addresses, config.playground);
        },
      });
      if (metrics) loadAfterListening(metrics, logger);
      return address;
    },
    close,
  };
}

/** The one line a started server logs: every address a user or an operator needs. */
function listeningLine(addresses: App['addresses'], playground: boolean): string {
  const extras = [
    playground && `playground ${addresses.http}/ui/`,
    addresses.grpc && `gRPC ${addresses.grpc}`,
    addresses.metrics && `metrics ${addresses.metrics}`,
  ].filter(Boolean);
  return `irserve listening on ${addresses.http}${extras.length > 0 ? ` (${extras.join(', ')})` : ''}`;
}

/**
 * prom-client is imported only when metrics are on, and then after the server listens (or at
 * the first scrape): the events of the first moments are replayed into it (deferred-metrics.ts).
 */
async function loadMetrics() {
  const { createPrometheusMetrics } = await import('./metrics/prometheus.js');
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return createPrometheusMetrics({ version: pkg.version });
}

/** Starts loading the metrics once the listening line is out; a failure is logged, not thrown. */
function loadAfterListening(metrics: DeferredMetrics, logger: Logger): void {
  metrics.load().catch((error: unknown) => {
    logger.error({ err: error }, 'metrics could not be loaded: /metrics answers 500');
  });
}
