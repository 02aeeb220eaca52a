import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { pino } from './prebundled/pino.js';
import { assemble, type AssembleOptions, type Assembled } from './app/assemble.js';
import { chosenCacheDir } from './app/cache-dir.js';
import { checkConfig } from './app/check-config.js';
import { closeAssembled, startAssembled, type SideServers } from './app/lifecycle-steps.js';
import type { IrserveConfig } from './config/schema.js';
import type { AppCore } from './core/app-core.js';
import type { EngineClass } from './engines/contract.js';
import type { EngineTypes } from './registry/engine-types.js';
import { deferredMetrics, type DeferredMetrics } from './metrics/deferred-metrics.js';
import type { GrpcServerHandle } from './transports/grpc/index.js';
import { drainingClose } from './transports/http/close-http.js';

export interface AppOptions {
  /** Logger to use; default: pino at `info` to stdout. */
  logger?: Logger;
  /**
   * Directory for indexes and sidecars; default: `cache_dir` of the config, else `.irserve-cache`
   * beside it, or the user's cache (`$XDG_CACHE_HOME/irserve/apps/...`) when the config's
   * directory is read-only.
   */
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
  /** Environment for `api_key_env` lookups and the `HF_*` model settings (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Never touch the network for models: hub ids must be in the Hugging Face cache (the CLI's
   * `--offline`; `HF_HUB_OFFLINE=1` does the same).
   */
  offline?: boolean;
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
  const configDir = resolve(options.configDir ?? '.');
  const logger = options.logger ?? pino({ level: 'info' });
  const { config, types } = await checkConfig(
    input,
    {
      baseDir: configDir,
      extra: options.engines ?? [],
      discoverExtras: options.extras ?? true,
      logger,
    },
    options.env ?? process.env,
  );
  const servers: SideServers = {};
  const metricsPort = options.metrics?.port ?? config.metrics.port;
  const metrics = config.metrics.enabled ? deferredMetrics(loadMetrics) : undefined;
  const addresses: App['addresses'] = {};
  const parts = await assemble(
    config,
    await assembleOptions(config, options, {
      configDir,
      logger,
      servers,
      metrics,
      metricsPort,
      types,
    }),
  );
  const closeHttp = drainingClose(parts.http);
  const listening: Listening = {
    config,
    options,
    parts,
    logger,
    metrics,
    metricsPort,
    servers,
    addresses,
  };
  let starting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const start = () => (starting ??= startAssembled(parts));
  const close = () =>
    (closing ??= closeAssembled(parts, {
      logger,
      servers,
      closeHttp,
      metrics,
      drainDelayMs: options.drainDelayMs,
    }));
  return {
    config,
    core: parts.core,
    http: parts.http,
    logger,
    start,
    addresses,
    async listen({ port, host }) {
      await start();
      return listenAll({ port, host }, listening);
    },
    close,
  };
}

/** What `assemble` gets: the app's options with their defaults applied. */
async function assembleOptions(
  config: IrserveConfig,
  options: AppOptions,
  app: Pick<Listening, 'logger' | 'servers' | 'metrics' | 'metricsPort'> & {
    configDir: string;
    types: EngineTypes;
  },
): Promise<AssembleOptions> {
  const { configDir, servers, metrics } = app;
  const env = options.env ?? process.env;
  return {
    logger: app.logger,
    configDir,
    cacheDir: await chosenCacheDir(configDir, options.cacheDir ?? config.cache_dir, {
      env,
      logger: app.logger,
    }),
    interactive: options.interactive ?? Boolean(process.stderr.isTTY),
    types: app.types,
    apiKey: options.apiKey,
    env,
    ...(options.offline ? { offline: true } : {}),
    // `/avail` advertises the gRPC port once the gRPC server is bound.
    availExtras: () => (servers.grpc ? { grpc_port: servers.grpc.port } : {}),
    metrics: metrics && { metrics, route: app.metricsPort === undefined },
  };
}

/** What `listen()` binds, with what, and where it notes the bound addresses. */
interface Listening {
  config: IrserveConfig;
  options: AppOptions;
  parts: Assembled;
  logger: Logger;
  metrics: DeferredMetrics | undefined;
  metricsPort: number | undefined;
  servers: SideServers;
  addresses: App['addresses'];
}

/** Binds gRPC and the metrics port (each once), then HTTP, whose line lists every address. */
async function listenAll(
  { port, host }: { port: number; host: string },
  app: Listening,
): Promise<string> {
  const { config, options, metrics, metricsPort, servers, addresses } = app;
  if (options.grpc && !servers.grpc) {
    // Bound before HTTP so that the first `/avail` already advertises it; loaded only here.
    servers.grpc = await startGrpc(app, options.grpc, host);
    addresses.grpc = `${options.grpc.host ?? host}:${servers.grpc.port}`;
  }
  if (metrics && metricsPort !== undefined && !servers.metrics) {
    const { startMetricsServer } = await import('./metrics/metrics-server.js');
    servers.metrics = await startMetricsServer(metrics, {
      port: metricsPort,
      host: options.metrics?.host ?? config.metrics.host ?? host,
    });
    addresses.metrics = `${servers.metrics.address}/metrics`;
  }
  const address = await app.parts.http.listen({
    port,
    host,
    listenTextResolver: (address) => {
      addresses.http = address;
      return listeningLine(addresses, config.playground);
    },
  });
  if (metrics) loadAfterListening(metrics, app.logger);
  return address;
}

/** The gRPC server over the app's core, on the HTTP host unless gRPC names its own. */
async function startGrpc(
  app: Listening,
  grpc: NonNullable<AppOptions['grpc']>,
  host: string,
): Promise<GrpcServerHandle> {
  const { startGrpcServer } = await import('./transports/grpc/index.js');
  return startGrpcServer(app.parts.core, {
    port: grpc.port,
    host: grpc.host ?? host,
    apiKey: app.options.apiKey,
    logger: app.logger,
    ...(app.metrics ? { metrics: app.metrics } : {}),
    ...(grpc.maxMessageMb ? { maxMessageMb: grpc.maxMessageMb } : {}),
  });
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
