import type { Logger } from 'pino';
import { KvPool } from '../cache/kv-connection.js';
import { createCollections } from '../collections/index.js';
import type { IrserveConfig } from '../config/schema.js';
import type { AppCore } from '../core/app-core.js';
import type { EngineClass } from '../engines/contract.js';
import { FederatedCollections, federatedContent } from '../federation/federated-collections.js';
import { Federation } from '../federation/federation.js';
import { createPipelineRunner } from '../pipeline/index.js';
import { createStore } from '../processors/create-store.js';
import { buildHttpServer } from '../transports/http/server.js';
import { buildEngineTypes } from './engine-catalog.js';
import { importsFromConfig } from './imports-from-config.js';
import { servicesFromConfig } from './services-from-config.js';

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
}

/**
 * Wires an app in dependency order: engine types, collections, services, server imports,
 * pipelines, then the HTTP server. Resources opened before a failure are closed again.
 */
export async function assemble(config: IrserveConfig, options: AssembleOptions) {
  const { logger, cacheDir, interactive, configDir } = options;
  const imports = importsFromConfig(config, options.env);
  const types = await buildEngineTypes({
    fileImports: config.file_imports,
    baseDir: configDir,
    extra: options.engines,
    discoverExtras: options.extras,
    logger,
  });
  const local = createCollections([...config.collections], {
    logger,
    cacheDir,
    interactive,
    baseDir: configDir,
  });
  const collections = new FederatedCollections(local.catalog);
  const kvPool = new KvPool(logger);
  try {
    const { registry, engines } = servicesFromConfig(config, types, {
      collections,
      kvPool,
      logger,
      cacheDir,
      interactive,
      configDir,
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
    const federation = new Federation(imports, {
      registry,
      collections,
      logger,
      cacheFor: (role, name) =>
        store(`relay:${name}:${role}`, config.relay_cache, config.relay_cache_ttl),
    });
    const content = federatedContent(
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
    });
    return { core, http, registry, engines, federation, kvPool };
  } catch (error) {
    await kvPool.close();
    throw error;
  }
}

/** `/health`: `degraded` while an external cache store or an imported remote is unreachable (requests still succeed). */
function healthReport(kvPool: KvPool, federation: Federation): Record<string, unknown> {
  const stores = kvPool.health();
  const imports = federation.health();
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
