import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KvPool } from '../cache/kv-connection.js';
import type { CollectionCatalog } from '../collections/types.js';
import { PROCESSOR_NAMES, type ServiceConfig } from '../config/service-schema.js';
import type { IrserveConfig } from '../config/schema.js';
import { ConfigError } from '../config/load.js';
import {
  type Capability,
  type Engine,
  type EngineClass,
  capabilitiesOf,
  instanceServes,
} from '../engines/contract.js';
import type { AppObserver } from '../metrics/observer.js';
import type { ModelSource } from '../models/types.js';
import { FUSION_ENGINES, RANK_FUSION_ENGINES } from '../engines/fusion/index.js';
import { buildService } from '../processors/build-service.js';
import { createStore, isKvStore } from '../cache/create-store.js';
import type { EngineTypes } from '../registry/engine-types.js';
import { ServiceRegistry } from '../registry/service-registry.js';
import { serviceScope, type ScopedEngine, type ServiceScope } from './cache-scopes.js';

export interface ServicesContext {
  collections: CollectionCatalog;
  kvPool: KvPool;
  logger: Logger;
  cacheDir: string;
  configDir: string;
  interactive: boolean;
  /** Metrics (none when disabled). */
  observer?: AppObserver | undefined;
  /** Where engines get the models their configs name. */
  models: ModelSource;
}

/** The services of the config plus the built-in fusion rules; returns the engines to start. */
export function servicesFromConfig(
  config: IrserveConfig,
  types: EngineTypes,
  context: ServicesContext,
) {
  const registry = new ServiceRegistry();
  const engines: ScopedEngine[] = [];
  const problems: string[] = [];
  const resources = new Map<string, unknown>();
  // Looked up when called (from start() on), so a service may name one declared after it.
  const engineOf = (name: string) => engines.find((entry) => entry.name === name)?.engine;
  config.services.forEach((service, index) => {
    try {
      const engineClass = types.get(service.engine);
      const logger = context.logger.child({ service: service.name });
      const engine = createConfiguredEngine(engineClass, service, logger, context, {
        resources,
        engineOf,
      });
      const shared = isKvStore({ kvUrl: service.cache_kv_url, kvKwargs: service.cache_kv_kwargs });
      const cacheScope = serviceScope(service.engine, service.config, shared);
      engines.push({ name: service.name, engine, cacheScope });
      registerServiceRoles(
        registry,
        { service, index, engineClass, engine, logger, cacheScope },
        config,
        context,
      );
    } catch (error) {
      problems.push(`services[${index}] ("${service.name}"): ${(error as Error).message}`);
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  registerBuiltinFusion(registry, engines, context);
  return { registry, engines };
}

/** One configured service with the engine built for it, as its roles are registered. */
interface ConfiguredService {
  service: ServiceConfig;
  /** Position in `services`, for the config path of its cache. */
  index: number;
  engineClass: EngineClass;
  engine: Engine;
  logger: Logger;
  /** The fingerprint its shared cache keys carry, settled once the engine started. */
  cacheScope: ServiceScope;
}

/** The engine of one configured service, sharing the app's resources and engine lookup. */
function createConfiguredEngine(
  engineClass: EngineClass,
  service: ServiceConfig,
  logger: Logger,
  context: ServicesContext,
  shared: { resources: Map<string, unknown>; engineOf: (name: string) => Engine | undefined },
): Engine {
  return new engineClass({
    name: service.name,
    config: { ...service.config },
    context: {
      collections: context.collections,
      logger,
      cacheDir: join(context.cacheDir, 'services', service.name),
      configDir: context.configDir,
      interactive: context.interactive,
      resources: shared.resources,
      models: context.models,
      engine: shared.engineOf,
    },
  });
}

/**
 * Registers one service per role of the engine: less `score` when scoring is disabled, and less
 * any capability the engine instance says it cannot serve (a `can*` getter that is false).
 */
function registerServiceRoles(
  registry: ServiceRegistry,
  built: ConfiguredService,
  config: IrserveConfig,
  context: ServicesContext,
): void {
  const { service, engineClass } = built;
  const roles = capabilitiesOf(engineClass).filter(
    (role) => !(role === 'score' && service.scoring_disabled) && instanceServes(built.engine, role),
  );
  for (const role of roles) registry.add(buildRoleService(built, role, config, context));
}

/** The service of one role: its own cache (memory or KV) wrapped around the shared engine. */
function buildRoleService(
  built: ConfiguredService,
  role: Capability,
  config: IrserveConfig,
  context: ServicesContext,
) {
  const { service, index, engineClass, engine, logger, cacheScope } = built;
  const kv = cacheScope.shared;
  const onCacheEvent = context.observer?.cache({
    service: service.name,
    role,
    store: kv ? 'kv' : 'memory',
  });
  const cache = createStore(
    {
      size: service.cache,
      ttl: service.cache_ttl,
      kvUrl: service.cache_kv_url,
      kvKwargs: service.cache_kv_kwargs,
      namespace: `${service.name}:${role}`,
      scope: cacheScope.scope,
      configPath: `services[${index}]`,
      onEvict: onCacheEvent,
    },
    context.kvPool,
  );
  return buildService({
    name: service.name,
    role,
    engine,
    engineName: service.engine,
    inputKind: role === 'search' || role === 'score' ? (engineClass.inputKind ?? 'text') : 'text',
    processor: PROCESSOR_NAMES[service.processor],
    batchSize: service.batch_size,
    maxWaitMs: service.max_wait_time * 1000,
    maxQueue: service.max_queue,
    maxConcurrentBatches: service.max_concurrent_batches,
    cache: cache as never,
    cacheKeyExclude: service.cache_key_exclude,
    timeoutMs: (service.timeout ?? config.timeout) * 1000,
    logger,
    observer: context.observer?.service(service.name, role),
    onCacheEvent,
  });
}

/** Fusion rules are served under their class names through a minimal processor. */
function registerBuiltinFusion(
  registry: ServiceRegistry,
  engines: ScopedEngine[],
  context: ServicesContext,
): void {
  for (const engineClass of FUSION_ENGINES) {
    if (registry.has('fuse', engineClass.name)) continue;
    const logger = context.logger.child({ service: engineClass.name });
    const engine = new engineClass({
      name: engineClass.name,
      config: {},
      context: {
        collections: context.collections,
        logger,
        cacheDir: context.cacheDir,
        configDir: context.configDir,
        interactive: context.interactive,
      },
    });
    engines.push({ name: engineClass.name, engine });
    registry.add(
      buildService({
        name: engineClass.name,
        role: 'fuse',
        engine,
        engineName: engineClass.name,
        inputKind: 'text',
        processor: 'minimal',
        batchSize: 1,
        maxWaitMs: 0,
        maxQueue: 1,
        maxConcurrentBatches: 1,
        cache: undefined,
        trustedResults: RANK_FUSION_ENGINES.has(engineClass),
        logger,
      }),
    );
  }
}
