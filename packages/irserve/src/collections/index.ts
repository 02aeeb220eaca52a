/**
 * Document collections: readers (JSONL offset maps, sharded gzip, tar shards, local files),
 * views, the catalog and the content service. See docs/collections.md.
 */
import { Catalog } from './catalog.js';
import type { CollectionConfig } from './config.js';
import { CollectionContentService } from './content-service.js';
import type { CollectionsOptions } from './options.js';
import type { CollectionCatalog, ContentService } from './types.js';

/**
 * Builds the catalog and the content service from validated collection configs. Nothing is read
 * from disk until a view is opened (`content.open()` at start-up or warmup, or a first lookup).
 *
 * @example
 * const { catalog, content } = await createCollections(config.collections, { logger, cacheDir, interactive: false, baseDir: configDir });
 * await content.open();
 * const result = await content.lookup({ collection: 'docs', id: 'd1' });
 */
export async function createCollections(
  configs: readonly CollectionConfig[],
  options: CollectionsOptions,
): Promise<{ catalog: CollectionCatalog; content: ContentService }> {
  // The reader and view modules (some 30) load only for a config that has collections.
  const { collections, settings } =
    configs.length === 0
      ? { collections: [], settings: new Map() }
      : (await import('./build-collections.js')).buildCollections(configs, options);
  const catalog = new Catalog(collections);
  return { catalog, content: new CollectionContentService(catalog, settings) };
}

export { collectionConfigSchema, type CollectionConfig } from './config.js';
export type { CollectionsOptions } from './options.js';
export type * from './types.js';
