import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KvPool } from '../cache/kv-connection.js';
import type { CollectionCatalog } from '../collections/types.js';
import { PROCESSOR_NAMES } from '../config/service-schema.js';
import type { IrserveConfig } from '../config/schema.js';
import { ConfigError } from '../config/load.js';
import { type Engine, rolesOf } from '../engines/contract.js';
import { FUSION_ENGINES } from '../engines/fusion/index.js';
import { buildService } from '../processors/build-service.js';
import { createStore } from '../processors/create-store.js';
import type { EngineTypes } from '../registry/engine-types.js';
import { ServiceRegistry } from '../registry/service-registry.js';

export interface ServicesContext {
  collections: CollectionCatalog;
  kvPool: KvPool;
  logger: Logger;
  cacheDir: string;
  configDir: string;
  interactive: boolean;
}

/** The services of the config plus the built-in fusion rules; returns the engines to start. */
export function servicesFromConfig(
  config: IrserveConfig,
  types: EngineTypes,
  context: ServicesContext,
) {
  const registry = new ServiceRegistry();
  const engines: { name: string; engine: Engine }[] = [];
  const problems: string[] = [];
  const resources = new Map<string, unknown>();
  config.services.forEach((service, index) => {
    try {
      const engineClass = types.get(service.engine);
      const logger = context.logger.child({ service: service.name });
      const engine = new engineClass({
        name: service.name,
        config: { ...service.config },
        context: {
          collections: context.collections,
          logger,
          cacheDir: join(context.cacheDir, 'services', service.name),
          configDir: context.configDir,
          interactive: context.interactive,
          resources,
        },
      });
      engines.push({ name: service.name, engine });
      const roles = rolesOf(engineClass).filter(
        (role) => !(role === 'score' && service.scoring_disabled),
      );
      for (const role of roles) {
        const cache = createStore(
          {
            size: service.cache,
            ttl: service.cache_ttl,
            kvUrl: service.cache_kv_url,
            kvKwargs: service.cache_kv_kwargs,
            namespace: `${service.name}:${role}`,
            configPath: `services[${index}]`,
          },
          context.kvPool,
        );
        registry.add(
          buildService({
            name: service.name,
            role,
            engine,
            engineName: service.engine,
            inputKind:
              role === 'search' || role === 'score' ? (engineClass.inputKind ?? 'text') : 'text',
            processor: PROCESSOR_NAMES[service.processor],
            batchSize: service.batch_size,
            maxWaitMs: service.max_wait_time * 1000,
            maxQueue: service.max_queue,
            maxConcurrentBatches: service.max_concurrent_batches,
            cache: cache as never,
            cacheKeyFields: service.cache_key_fields,
            logger,
          }),
        );
      }
    } catch (error) {
      problems.push(`services[${index}] ("${service.name}"): ${(error as Error).message}`);
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  registerBuiltinFusion(registry, engines, context);
  return { registry, engines };
}

/** Fusion rules are served under their class names through a minimal processor. */
function registerBuiltinFusion(
  registry: ServiceRegistry,
  engines: { name: string; engine: Engine }[],
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
        cacheKeyFields: [],
        logger,
      }),
    );
  }
}
