/**
 * Document collections: readers (JSONL offset maps, sharded gzip, tar shards, local files),
 * views, the catalog and the content service. See docs/collections.md.
 */
import { homedir } from 'node:os';
import type { Logger } from 'pino';
import { IrserveError } from '../errors.js';
import { buildView, declaredViews, languageMap, type BuildContext } from './build-views.js';
import { Catalog, CollectionImpl } from './catalog.js';
import type { CollectionConfig } from './config.js';
import { CollectionContentService, type CacheSettings } from './content-service.js';
import { defaultIsWritable, userCacheRoot, type IsWritable } from './sidecar.js';
import type { CollectionCatalog, ContentService, View } from './types.js';

export interface CollectionsOptions {
  logger: Logger;
  /** The app's cache directory (not used for sidecars: they follow the rules in docs/collections.md). */
  cacheDir: string;
  /** Draw progress bars instead of log lines. */
  interactive: boolean;
  /** The config file's directory: relative paths in the config resolve against it. */
  baseDir: string;
  /** Per-user fallback for sidecars; default `$XDG_CACHE_HOME/irserve` (or `~/.cache/irserve`). */
  userCacheDir?: string;
  /** Whether a directory accepts new files (tests inject this: root can write anywhere). */
  isWritable?: IsWritable;
}

/**
 * Builds the catalog and the content service from validated collection configs. Nothing is read
 * from disk until a view is opened (`content.open()` at start-up or warmup, or a first lookup).
 *
 * @example
 * const { catalog, content } = createCollections(config.collections, { logger, cacheDir, interactive: false, baseDir: configDir });
 * await content.open();
 * const result = await content.lookup({ collection: 'docs', id: 'd1' });
 */
export function createCollections(
  configs: CollectionConfig[],
  options: CollectionsOptions,
): { catalog: CollectionCatalog; content: ContentService } {
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
    const languages = languageMap(config, options.baseDir);
    const views = new Map<string, View>();
    for (const [name, spec] of Object.entries(declaredViews(config))) {
      try {
        views.set(name, buildView(name, spec, config, languages, ctx));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new IrserveError(
          'ERR_CONFIG',
          `collection "${config.name}" view "${name}": ${message}`,
          { cause: error },
        );
      }
    }
    const defaultView = config.default_view ?? [...views.keys()][0];
    if (defaultView === undefined)
      throw new IrserveError('ERR_CONFIG', `collection "${config.name}" has no view`);
    collections.push(new CollectionImpl(config.name, views, defaultView));
    settings.set(config.name, { cache: config.cache, cacheTtl: config.cache_ttl });
  }
  const catalog = new Catalog(collections);
  return { catalog, content: new CollectionContentService(catalog, settings) };
}

export { collectionConfigSchema, type CollectionConfig } from './config.js';
export type * from './types.js';
