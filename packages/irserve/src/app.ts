import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildEngineTypes } from './app/engine-catalog.js';
import { closeAll } from './app/close-all.js';
import { KvPool } from './cache/kv-connection.js';
import { servicesFromConfig } from './app/services-from-config.js';
import { createCollections } from './collections/index.js';
import type { IrserveConfig } from './config/schema.js';
import { validateConfig } from './config/load.js';
import type { AppCore } from './core/app-core.js';
import type { Engine, EngineClass } from './engines/contract.js';
import { createPipelineRunner } from './pipeline/index.js';
import { buildHttpServer } from './transports/http/server.js';

export interface AppOptions {
  /** Logger to use; default: pino at `info` to stdout. */
  logger?: Logger;
  /** Directory for indexes and sidecars; default: `cache_dir` of the config, else `.irserve-cache` beside it. */
  cacheDir?: string;
  /** Directory that relative paths in the config resolve against; default: the working directory. */
  configDir?: string;
  /** Extra engine classes (besides built-ins and `file_imports`). */
  engines?: EngineClass[];
  /** Bearer token; undefined means requests need no credentials. */
  apiKey?: string;
  /** Draw progress bars (default: whether stderr is a terminal). */
  interactive?: boolean;
}

export interface App {
  readonly config: IrserveConfig;
  readonly core: AppCore;
  /** The Fastify server (use `.inject()` in tests). */
  readonly http: FastifyInstance;
  readonly logger: Logger;
  /** Starts engines (index builds, model loads); idempotent. */
  start(): Promise<void>;
  /** Starts, then listens; resolves with the address. */
  listen(options: { port: number; host: string }): Promise<string>;
  /** Drains in-flight requests and closes everything in reverse order; idempotent. */
  close(): Promise<void>;
}

/**
 * Builds an app from a config object: validated, wired, not yet started. Two apps can live in
 * one process; nothing is shared between them.
 *
 * @example
 * const app = await createApp({ services: [{ name: 'bm25', engine: 'BM25', config: { collection: 'docs' } }], collections: [...] });
 * await app.listen({ port: 8000, host: '127.0.0.1' });
 */
export async function createApp(input: unknown, options: AppOptions = {}): Promise<App> {
  const config = validateConfig(input);
  const configDir = resolve(options.configDir ?? '.');
  const logger = options.logger ?? pino({ level: 'info' });
  const cacheDir = resolve(configDir, options.cacheDir ?? config.cache_dir ?? '.irserve-cache');
  const interactive = options.interactive ?? Boolean(process.stderr.isTTY);

  const types = await buildEngineTypes(config.file_imports, configDir, options.engines ?? []);
  const { catalog, content } = createCollections([...config.collections], {
    logger,
    cacheDir,
    interactive,
    baseDir: configDir,
  });
  const kvPool = new KvPool(logger);
  let services: ReturnType<typeof servicesFromConfig>;
  try {
    services = servicesFromConfig(config, types, {
      collections: catalog,
      kvPool,
      logger,
      cacheDir,
      interactive,
    });
  } catch (error) {
    await kvPool.close();
    throw error;
  }
  const { registry, engines } = services;
  const pipelines = createPipelineRunner({
    services: registry,
    content,
    collections: catalog,
    logger,
    aliases: { ...config.pipeline_aliases },
    cache: { size: config.pipeline_cache, ttl: config.pipeline_cache_ttl },
  });
  const core: AppCore = {
    services: registry,
    collections: catalog,
    content,
    pipelines,
    logger,
    maxLimit: config.max_limit,
    health: () => healthReport(kvPool),
  };
  const http = buildHttpServer(core, {
    apiKey: options.apiKey,
    bodyLimit: config.body_limit,
    logger,
  });
  return lifecycle({
    config,
    core,
    http,
    logger,
    engines,
    closeServices: () => registry.close(),
    closeContent: () => content.close(),
    closeStores: () => kvPool.close(),
  });
}

/** `/health`: `degraded` while an external cache store is unreachable (requests still succeed). */
function healthReport(kvPool: KvPool): Record<string, unknown> {
  const stores = kvPool.health();
  return {
    status: stores.every((store) => store.state !== 'down') ? 'ok' : 'degraded',
    cache_stores: stores,
  };
}

interface Parts {
  config: IrserveConfig;
  core: AppCore;
  http: FastifyInstance;
  logger: Logger;
  engines: { name: string; engine: Engine }[];
  closeServices: () => Promise<void>;
  closeContent: () => Promise<void>;
  closeStores: () => Promise<void>;
}

function lifecycle(parts: Parts): App {
  const { http, logger, engines } = parts;
  let starting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const start = () =>
    (starting ??= (async () => {
      for (const { name, engine } of engines) {
        try {
          await engine.start?.();
        } catch (error) {
          throw new Error(`service "${name}" failed to start: ${(error as Error).message}`, {
            cause: error,
          });
        }
      }
    })());
  const close = () =>
    (closing ??= closeAll(logger, [
      ['http server', () => http.close()],
      ['services', parts.closeServices],
      ...engines
        .toReversed()
        .map(({ name, engine }) => [`engine ${name}`, async () => engine.close?.()] as const),
      ['collections', parts.closeContent],
      ['cache stores', parts.closeStores],
    ]));
  return {
    config: parts.config,
    core: parts.core,
    http,
    logger,
    start,
    async listen({ port, host }) {
      await start();
      return http.listen({ port, host });
    },
    close,
  };
}
