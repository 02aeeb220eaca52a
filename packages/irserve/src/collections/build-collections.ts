/**
 * Builds the collections of a config: their views over readers (JSONL offset maps, sharded
 * gzip, tar shards, local files). Imported by `createCollections` only when the config has
 * collections, so a server without any loads none of the reader modules.
 */
import { homedir } from 'node:os';
import { IrserveError } from '../errors.js';
import { buildView, declaredViews, languageMap, type BuildContext } from './build-views.js';
import { CollectionImpl } from './catalog.js';
import type { CollectionConfig } from './config.js';
import type { CacheSettings } from './content-service.js';
import type { CollectionsOptions } from './options.js';
import { defaultIsWritable, userCacheRoot } from './sidecar.js';
import type { View } from './types.js';

/**
 * One collection per config, with its cache settings by name. Nothing is read from disk.
 *
 * @example
 * const { collections, settings } = buildCollections(config.collections, options);
 */
export function buildCollections(
  configs: readonly CollectionConfig[],
  options: CollectionsOptions,
): { collections: CollectionImpl[]; settings: Map<string, CacheSettings> } {
  const ctx: BuildContext = {
    logger: options.logger,
    interactive: options.interactive,
    baseDir: options.baseDir,
    userCacheDir: options.userCacheDir ?? userCacheRoot(process.env, homedir()),
    isWritable: options.isWritable ?? defaultIsWritable,
    readers: new Map(),
  };
  const collections: CollectionImpl[] = [];
  const settings = new Map<string, CacheSettings>();
  for (const config of configs) {
    collections.push(buildCollection(config, options.baseDir, ctx));
    settings.set(config.name, { cache: config.cache, cacheTtl: config.cache_ttl });
  }
  return { collections, settings };
}

function buildCollection(
  config: CollectionConfig,
  baseDir: string,
  ctx: BuildContext,
): CollectionImpl {
  const languages = languageMap(config, baseDir);
  const views = new Map<string, View>();
  for (const [name, spec] of Object.entries(declaredViews(config))) {
    try {
      views.set(name, buildView(name, spec, config, languages, ctx));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new IrserveError(
        'ERR_CONFIG',
        `collection "${config.name}" view "${name}": ${message}`,
        {
          cause: error,
        },
      );
    }
  }
  const defaultView = config.default_view ?? [...views.keys()][0];
  if (defaultView === undefined)
    throw new IrserveError('ERR_CONFIG', `collection "${config.name}" has no view`);
  return new CollectionImpl(config.name, views, defaultView);
}
