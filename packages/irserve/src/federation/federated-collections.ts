import type {
  Collection,
  CollectionCatalog,
  ContentRequest,
  ContentResult,
  ContentService,
  LookupOptions,
} from '../collections/types.js';
import { IrserveError } from '../errors.js';
import type { CacheStore } from '../cache/cache-store.js';
import { type CacheEntry, withCache } from '../cache/cached.js';

/** Local collections plus those imported from remote instances; local names win. */
export class FederatedCollections implements CollectionCatalog {
  readonly #local: CollectionCatalog;
  readonly #remote = new Map<string, Collection>();

  constructor(local: CollectionCatalog) {
    this.#local = local;
  }

  /** Adds a remote collection; false when a collection of that name exists already. */
  addRemote(collection: Collection): boolean {
    if (this.has(collection.name)) return false;
    this.#remote.set(collection.name, collection);
    return true;
  }

  isRemote(name: string): boolean {
    return !this.#local.has(name) && this.#remote.has(name);
  }

  get(name: string): Collection {
    if (this.#local.has(name)) return this.#local.get(name);
    const remote = this.#remote.get(name);
    if (!remote)
      throw new IrserveError('ERR_COLLECTION_NOT_FOUND', `collection '${name}' not found`, {
        details: { collection: name },
      });
    return remote;
  }

  has(name: string): boolean {
    return this.#local.has(name) || this.#remote.has(name);
  }

  names(): string[] {
    return [
      ...this.#local.names(),
      ...[...this.#remote.keys()].filter((name) => !this.#local.has(name)),
    ];
  }
}

type Lookup = Omit<ContentResult, 'cached'>;

/**
 * Content lookups for local and remote collections. Remote lookups go through the relay content
 * processor: one at a time, cached only when `relay_content_cache` > 0, keyed by
 * (collection, view, id) so views never mix (RoutIR keys on the id alone).
 */
export function federatedContent(
  local: ContentService,
  catalog: FederatedCollections,
  cache: CacheStore<CacheEntry<Lookup>> | undefined,
): ContentService {
  const fetchRemote = async (request: ContentRequest, options?: LookupOptions) => {
    const collection = catalog.get(request.collection);
    const view = collection.view(request.view);
    const document = await view.get(request.id, options);
    if (!document) {
      throw new IrserveError('ERR_DOC_NOT_FOUND', `ID ${request.id} is not found.`, {
        details: { collection: request.collection, id: request.id },
      });
    }
    const value: Lookup = {
      collection: collection.name,
      id: request.id,
      view: view.name,
      kind: view.kind,
      document,
    };
    return { value, cached: false, timestamp: Date.now() / 1000 };
  };
  const remote = cache
    ? withCache(fetchRemote, {
        store: cache,
        key: (r) => JSON.stringify([r.collection, r.view ?? null, r.id]),
      }).call
    : fetchRemote;
  return {
    async lookup(request, options) {
      if (!catalog.isRemote(request.collection)) return local.lookup(request, options);
      const result = await remote(
        request,
        options?.signal ? { signal: options.signal } : undefined,
      );
      return { ...result.value, cached: result.cached };
    },
    open: () => local.open(),
    close: () => local.close(),
  };
}
