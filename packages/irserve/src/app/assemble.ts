import type { Logger } from 'pino';
import { KvPool } from '../cache/kv-connection.js';
import { createCollections } from '../collections/index.js';
import type { IrserveConfig } from '../config/schema.js';
import type { AppCore } from '../core/app-core.js';
import type { EngineClass } from '../engines/contract.js';
import { FederatedCollections, federatedContent } from '../federation/federated-collections.js';
import type { Federation } from '../federation/federation.js';
import type { AppMetrics } from '../metrics/prometheus.js';
import { observedContent } from '../metrics/observed-content.js';
import { createPipelineRunner } from '../pipeline/index.js';
import { createStore } from '../processors/create-store.js';
import { buildHttpServer } from '../transports/http/server.js';
import { buildEngineTypes } from './engine-catalog.js';
import { importsFromConfig } from './imports-from-config.js';
import { servicesFromConfig } from './services-from-config.js';
import { usesKvStore } from './uses-kv-store.js';

export interface AssembleOptions {
  logger: Logger;
  configDir: string;
  cacheDir: string;
  interactive: boolean;
  engines: readonly EngineClass[];
  /** Discover installed `@irserve/*` extras. */
  extras: boolean;
  apiKey: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Extra keys of `/avail` (the gRPC port). */
  availExtras?: () => Record<string, unknown>;
  /** Metrics of the app, and whether `/metrics` is served on the HTTP port. */
  metrics?: { metrics: AppMetrics; route: boolean } | undefined;
}

/** What server_imports need; nothing (and no federation modules loaded) without any. */
async function createFederation(
  config: IrserveConfig,
  options: AssembleOptions,
  deps: Omit<ConstructorParameters<typeof Federation>[1], 'observer'>,
): Promise<Federation | undefined> {
  const imports = importsFromConfig(config, options.env);
  if (imports.length === 0) return undefined;
  const { Federation } = await import('../federation/federation.js');
  return new Federation(imports, { ...deps, observer: options.metrics?.metrics });
}

/**
 * Wires an app in dependency order: engine types, collections, services, server imports,
 * pipelines, then the HTTP server. Resources opened before a failure are closed again.
 */
export async function assemble(config: IrserveConfig, options: AssembleOptions) {
  const { logger, cacheDir, interactive, configDir } = options;
  const observer = options.metrics?.metrics;
  // Checked first: a bad api_key_env fails before any engine module loads.
  importsFromConfig(config, options.env);
  const types = await buildEngineTypes({
    fileImports: config.file_imports,
    baseDir: configDir,
    extra: options.engines,
    discoverExtras: options.extras,
    wanted: config.services.map((service) => service.engine),
    logger,
  });
  const local = createCollections([...config.collections], {
    logger,
    cacheDir,
    interactive,
    baseDir: configDir,
  });
  const collections = new FederatedCollections(local.catalog);
  const kvPool = await KvPool.create(logger, usesKvStore(config));
  try {
    const { registry, engines } = servicesFromConfig(config, types, {
      collections,
      kvPool,
      logger,
      cacheDir,
      interactive,
      configDir,
      observer,
    });
    const store = (
      configPath: string,
      size: number,
      ttl: number,
      kvUrl?: string,
      kvKwargs?: Record<string, unknown>,
      prefix?: string,
    ) =>
      createStore<never>(
        {
          size,
          ttl,
          kvUrl,
          kvKwargs,
          namespace: configPath,
          configPath,
          ...(prefix ? { prefix } : {}),
        },
        kvPool,
      );
    const federation = await createFederation(config, options, {
      registry,
      collections,
      logger,
      cacheFor: (role, name) =>
        store(`relay:${name}:${role}`, config.relay_cache, config.relay_cache_ttl),
    });
    const federated = federatedContent(
      local.content,
      collections,
      store(
        'relay_content_cache',
        config.relay_content_cache,
        config.relay_content_cache_ttl,
        config.relay_content_cache_kv_url,
        config.relay_content_cache_kv_kwargs,
        'relaycontent:',
      ),
    );
    const content = observer ? observedContent(federated, collections, observer) : federated;
    const pipelines = createPipelineRunner({
      services: registry,
      content,
      collections,
      logger,
      aliases: { ...config.pipeline_aliases },
      cache: {
        size: config.pipeline_cache,
        ttl: config.pipeline_cache_ttl,
        store: store(
          'pipeline_cache',
          config.pipeline_cache,
          config.pipeline_cache_ttl,
          config.pipeline_cache_kv_url,
          config.pipeline_cache_kv_kwargs,
          'pipelinecache:',
        ),
      },
      maxLimit: config.max_limit,
    });
    const core: AppCore = {
      services: registry,
      collections,
      content,
      pipelines,
      logger,
      maxLimit: config.max_limit,
      health: () => healthReport(kvPool, federation),
    };
    const http = buildHttpServer(core, {
      apiKey: options.apiKey,
      bodyLimit: config.body_limit,
      logger,
      compat: config.compat,
      mcp: { ...config.mcp, descriptions: serviceDescriptions(config) },
      ...(options.availExtras ? { availExtras: options.availExtras } : {}),
      metrics: options.metrics,
      playground: config.playground,
    });
    return { core, http, registry, engines, federation, kvPool };
  } catch (error) {
    await kvPool.close();
    throw error;
  }
}

/** `/health`: `degraded` while an external cache store or an imported remote is unreachable (requests still succeed). */
function healthReport(kvPool: KvPool, federation: Federation | undefined): Record<string, unknown> {
  const stores = kvPool.health();
  const imports = federation?.health() ?? [];
  const ok =
    stores.every((store) => store.state !== 'down') &&
    imports.every((remote) => remote.state === 'up');
  return { status: ok ? 'ok' : 'degraded', cache_stores: stores, server_imports: imports };
}

/** `services[].description` by service name (MCP's list_services shows them). */
export function serviceDescriptions(config: IrserveConfig): Record<string, string> {
  return Object.fromEntries(
    config.services.flatMap((service) =>
      service.description !== undefined ? [[service.name, service.description]] : [],
    ),
  );
}
