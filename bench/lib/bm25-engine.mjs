// The irserve BM25 engine over a JSONL corpus, built the way the app builds it (a collection
// with a text view, then the engine), for the BM25 benchmarks. Index and offset map go to `dir`.
import { join } from 'node:path';

const dist = new URL('../../packages/irserve/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);

/**
 * Returns `open()`, which makes a new (not yet started) BM25 engine over the same collection
 * and index directory each time: the first start builds the index, later ones reload it.
 * `config` adds to (or overrides) the engine's config.
 */
export async function bm25Over({ corpus, idField = 'id', dir, logger, config: extra = {} }) {
  const { createCollections, collectionConfigSchema } = await load('collections/index.js');
  const { BM25 } = await load('engines/bm25/index.js');
  const collection = collectionConfigSchema.parse({
    name: 'c',
    views: {
      text: {
        source: {
          source: 'text_jsonl',
          doc_path: corpus,
          id_field: idField,
          content_fields: ['title', 'text'],
          cache_dir: dir,
        },
      },
    },
  });
  const { catalog } = await createCollections([collection], {
    logger,
    cacheDir: dir,
    interactive: false,
    baseDir: dir,
  });
  const context = {
    collections: catalog,
    logger,
    cacheDir: dir,
    configDir: dir,
    interactive: false,
  };
  const config = { collection: 'c', index_path: join(dir, 'idx'), ...extra };
  return { open: () => new BM25({ name: 'bm25', config, context }) };
}
