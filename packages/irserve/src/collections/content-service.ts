/**
 * Content lookup behind the content processor: per collection, an LRU cache (256 entries, 600 s
 * by default; -1 or 0 disables) keyed by collection, view and id, with single flight.
 */
import { IrserveError } from '../errors.js';
import { withCache, type Call } from '../cache/cached.js';
import { MemoryStore } from '../cache/memory-store.js';
import type { Catalog, CollectionImpl } from './catalog.js';
import type {
  BytesDocument,
  ContentRequest,
  ContentResult,
  ContentService,
  LookupOptions,
  TextDocument,
  View,
} from './types.js';

type Document = TextDocument | BytesDocument;

interface Lookup {
  collection: string;
  viewName: string;
  view: View;
  id: string;
}

export interface CacheSettings {
  cache: number;
  cacheTtl: number;
}

const quote = (text: string): string =>
  JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);

async function fetchDocument(
  lookup: Lookup,
  options?: LookupOptions,
): Promise<{ value: Document; cached: boolean; timestamp: number }> {
  await lookup.view.open();
  const doc = await lookup.view.get(lookup.id, options);
  if (doc === undefined) {
    throw new IrserveError(
      'ERR_DOC_NOT_FOUND',
      `ID ${quote(lookup.id)} is not found in view ${quote(lookup.viewName)} of collection ${quote(lookup.collection)}`,
      {
        details: { collection: lookup.collection, view: lookup.viewName },
      },
    );
  }
  return { value: doc, cached: false, timestamp: Date.now() / 1000 };
}

/** Builds the content call of one collection: cached unless its cache size is -1 or 0. */
function contentCall(settings: CacheSettings): {
  call: Call<Lookup, Document>;
  store: { close(): Promise<void> } | undefined;
} {
  if (settings.cache === 0 || settings.cache === -1)
    return { call: fetchDocument, store: undefined };
  const store = new MemoryStore<{ value: Document; timestamp: number }>({
    capacity: settings.cache,
    ttlSeconds: settings.cacheTtl,
  });
  const { call } = withCache<Lookup, Document>(fetchDocument, {
    store,
    key: (l) => JSON.stringify([l.collection, l.viewName, l.id]),
  });
  return { call, store };
}

export class CollectionContentService implements ContentService {
  readonly #catalog: Catalog;
  readonly #calls = new Map<
    string,
    { call: Call<Lookup, Document>; store: { close(): Promise<void> } | undefined }
  >();

  constructor(catalog: Catalog, settings: ReadonlyMap<string, CacheSettings>) {
    this.#catalog = catalog;
    for (const name of catalog.names())
      this.#calls.set(name, contentCall(settings.get(name) ?? { cache: 256, cacheTtl: 600 }));
  }

  /**
   * The document `request` names. `options.signal` reaches the view (a remote one cuts its call);
   * when a lookup shared in the cache's single flight is cut, the requests still waiting for it
   * make it again.
   */
  async lookup(request: ContentRequest, options?: LookupOptions): Promise<ContentResult> {
    const collection = this.#catalog.get(request.collection);
    const viewName = request.view ?? collection.defaultView;
    const view = collection.view(viewName);
    const { call } = this.#calls.get(collection.name)!;
    const lookup = { collection: collection.name, viewName, view, id: request.id };
    const result = await call(lookup, options?.signal ? { signal: options.signal } : undefined);
    return {
      collection: collection.name,
      id: request.id,
      view: viewName,
      kind: view.kind,
      document: result.value,
      cached: result.cached,
    };
  }

  /**
   * Opens every view of every collection (offset maps, shard indexes), one after another; throws
   * one error naming each view that failed.
   */
  async open(): Promise<void> {
    const failures: { collection: string; view: string; error: string }[] = [];
    for (const collection of this.#catalog.all()) await openViews(collection, failures);
    if (failures.length > 0) {
      const lines = failures.map(
        (f) => `collection "${f.collection}" view "${f.view}": ${f.error}`,
      );
      throw new IrserveError(
        'ERR_CONFIG',
        `${failures.length} collection view(s) failed to open:\n  ${lines.join('\n  ')}`,
        { details: { failures } },
      );
    }
  }

  async close(): Promise<void> {
    for (const collection of this.#catalog.all()) {
      for (const view of collection.views()) await view.close().catch(() => undefined);
    }
    for (const { store } of this.#calls.values()) await store?.close();
  }
}

async function openViews(
  collection: CollectionImpl,
  failures: { collection: string; view: string; error: string }[],
): Promise<void> {
  for (const view of collection.views()) {
    try {
      await view.open();
    } catch (error) {
      failures.push({
        collection: collection.name,
        view: view.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
