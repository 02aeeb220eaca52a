import type { Logger } from 'pino';
import { KvPool } from '../cache/kv-connection.js';
import { createCollections } from '../collections/index.js';
import type { CollectionCatalog, ContentService } from '../collections/types.js';
import type { IrserveConfig } from '../config/schema.js';
import type { AppCore } from '../core/app-core.js';
import type { Engine } from '../engines/contract.js';
import { FederatedCollections, federatedContent } from '../federation/federated-collections.js';
import type { Federation } from '../federation/federation.js';
import type { AppMetrics } from '../metrics/prometheus.js';
import { observedContent } from '../metrics/observed-content.js';
import { createModelSource } from '../models/model-source.js';
import { createPipelines } from '../pipeline/lazy-runner.js';
import { createStore, isKvStore } from '../cache/create-store.js';
import { KeyScope } from '../cache/key-scope.js';
import type { EngineTypes } from '../registry/engine-types.js';
import type { ServiceRegistry } from '../registry/service-registry.js';
import { buildHttpServer, type HttpOptions } from '../transports/http/server.js';
import { healthReport, type Lifecycle } from './health-report.js';
import { importsFromConfig } from './imports-from-config.js';
import { servicesFromConfig } from './services-from-config.js';
import { usesKvStore } from './uses-kv-store.js';

export type { Lifecycle } from './health-report.js';

export interface AssembleOptions {
  logger: Logger;
  configDir: string;
  cacheDir: string;
  interactive: boolean;
  /** The engine classes the config names, loaded when it was checked (`checkConfig`). */
  types: EngineTypes;
  apiKey: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Extra keys of `/avail` (the gRPC port). */
  availExtras?: () => Record<string, unknown>;
  /** Never touch the network for models (`--offline`; `HF_HUB_OFFLINE=1` does the same). */
  offline?: boolean;
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
  const { types } = options;
  const local = await createCollections(config.collections, {
    logger,
    cacheDir,
    interactive,
    baseDir: configDir,
  });
  const collections = new FederatedCollections(local.catalog);
  const kvPool = await KvPool.create(logger, usesKvStore(config));
  try {
    return await wireServicesAndServer(config, options, { types, local, collections, kvPool });
  } catch (error) {
    await kvPool.close();
    throw error;
  }
}

/** The wired parts of an app, not yet started. */
export type Assembled = Awaited<ReturnType<typeof assemble>>;

/** What is open before the cache-store pool exists, and the pool itself. */
interface Opened {
  types: EngineTypes;
  local: { catalog: CollectionCatalog; content: ContentService };
  collections: FederatedCollections;
  kvPool: KvPool;
}

/** Everything that may use the cache-store pool, so that a failure here closes it again. */
async function wireServicesAndServer(
  config: IrserveConfig,
  options: AssembleOptions,
  opened: Opened,
) {
  const { logger, cacheDir, interactive, configDir } = options;
  const { types, local, collections, kvPool } = opened;
  const observer = options.metrics?.metrics;
  const { registry, engines } = servicesFromConfig(config, types, {
    collections,
    kvPool,
    logger,
    cacheDir,
    interactive,
    configDir,
    observer,
    models: createModelSource({
      configDir,
      logger,
      interactive,
      env: options.env,
      ...(options.offline ? { offline: true } : {}),
    }),
  });
  addEngineCollections(engines, collections, logger);
  const lifecycle: Lifecycle = { state: 'starting' };
  const store = storeFactory(kvPool);
  const federation = await createFederation(config, options, {
    registry,
    collections,
    logger,
    cacheFor: (role, name) =>
      store(`relay:${name}:${role}`, config.relay_cache, config.relay_cache_ttl),
  });
  const content = relayedContent(config, local.content, collections, store, observer);
  // An external pipeline cache keys by the fingerprints of every service (settled at start).
  const pipelineScope = isKvStore({
    kvUrl: config.pipeline_cache_kv_url,
    kvKwargs: config.pipeline_cache_kv_kwargs,
  })
    ? new KeyScope()
    : undefined;
  const pipelines = await createPipelines({
    services: registry,
    content,
    collections,
    logger,
    aliases: { ...config.pipeline_aliases },
    cache: pipelineCache(config, store, pipelineScope),
    maxLimit: config.max_limit,
  });
  const core: AppCore = {
    services: registry,
    collections,
    content,
    pipelines,
    logger,
    maxLimit: config.max_limit,
    searchCollections: searchCollections(config, registry, collections),
    health: () => healthReport(kvPool, federation, engines, lifecycle),
  };
  const http = buildHttpServer(core, httpOptions(config, options));
  return { core, http, registry, engines, federation, kvPool, lifecycle, pipelineScope };
}

/** Creates a cache store named by its config path (memory, or KV when a URL is given). */
function storeFactory(kvPool: KvPool) {
  return (
    configPath: string,
    size: number,
    ttl: number,
    kvUrl?: string,
    kvKwargs?: Record<string, unknown>,
    prefix?: string,
    scope?: KeyScope,
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
        scope,
      },
      kvPool,
    );
}

type StoreFactory = ReturnType<typeof storeFactory>;

/** Local content with imported collections relayed (and cached), observed when metrics are on. */
function relayedContent(
  config: IrserveConfig,
  localContent: ContentService,
  collections: FederatedCollections,
  store: StoreFactory,
  observer: AppMetrics | undefined,
) {
  const federated = federatedContent(
    localContent,
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
  return observer ? observedContent(federated, collections, observer) : federated;
}

/** The pipeline result cache: its size, TTL and store. */
function pipelineCache(config: IrserveConfig, store: StoreFactory, scope: KeyScope | undefined) {
  return {
    size: config.pipeline_cache,
    ttl: config.pipeline_cache_ttl,
    store: store(
      'pipeline_cache',
      config.pipeline_cache,
      config.pipeline_cache_ttl,
      config.pipeline_cache_kv_url,
      config.pipeline_cache_kv_kwargs,
      'pipelinecache:',
      scope,
    ),
  };
}

/** The HTTP server's options from the config and the app's options. */
function httpOptions(config: IrserveConfig, options: AssembleOptions): HttpOptions {
  return {
    apiKey: options.apiKey,
    bodyLimit: config.body_limit,
    requestTimeout: config.request_timeout,
    maxConnections: config.max_connections,
    logger: options.logger,
    compat: config.compat,
    mcp: { ...config.mcp, descriptions: serviceDescriptions(config) },
    ...(options.availExtras ? { availExtras: options.availExtras } : {}),
    metrics: options.metrics,
    playground: config.playground,
  };
}

/** Engines that serve a collection over their back-end (`provideCollections`) join the catalog. */
function addEngineCollections(
  engines: readonly { name: string; engine: Engine }[],
  collections: FederatedCollections,
  logger: Logger,
): void {
  for (const { name, engine } of engines) {
    for (const collection of engine.provideCollections?.() ?? []) {
      if (!collections.addRemote(collection))
        logger.warn(
          { service: name, collection: collection.name },
          'a collection of that name exists already: the service does not replace it',
        );
    }
  }
}

/** `services[].description` by service name (MCP's list_services shows them). */
export function serviceDescriptions(config: IrserveConfig): Record<string, string> {
  return Object.fromEntries(
    config.services.flatMap((service) =>
      service.description !== undefined ? [[service.name, service.description]] : [],
    ),
  );
}

/**
 * Search services whose config names one of the app's collections (`collection`, as BM25's and
 * the back-ends' do), to that collection.
 */
function searchCollections(
  config: IrserveConfig,
  registry: ServiceRegistry,
  collections: CollectionCatalog,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const service of config.services) {
    const collection = (service.config as { collection?: unknown } | undefined)?.collection;
    if (
      typeof collection === 'string' &&
      collections.has(collection) &&
      registry.has('search', service.name)
    )
      out[service.name] = collection;
  }
  return out;
}
