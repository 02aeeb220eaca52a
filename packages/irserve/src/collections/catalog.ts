import { IrserveError } from '../errors.js';
import type { Collection, CollectionCatalog, View, ViewKind } from './types.js';

function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
}

/** A collection: its views by name and the default one. */
export class CollectionImpl implements Collection {
  readonly name: string;
  readonly defaultView: string;
  readonly viewKinds: Readonly<Record<string, ViewKind>>;
  readonly #views: ReadonlyMap<string, View>;

  constructor(name: string, views: ReadonlyMap<string, View>, defaultView: string) {
    this.name = name;
    this.#views = views;
    this.defaultView = defaultView;
    this.viewKinds = Object.freeze(Object.fromEntries([...views].map(([n, v]) => [n, v.kind])));
  }

  view(name?: string): View {
    const viewName = name ?? this.defaultView;
    const view = this.#views.get(viewName);
    if (!view) {
      throw new IrserveError(
        'ERR_COLLECTION_NOT_FOUND',
        `view ${quote(viewName)} is not defined for collection ${quote(this.name)} (views: ${[...this.#views.keys()].join(', ')})`,
        {
          details: { collection: this.name, view: viewName },
        },
      );
    }
    return view;
  }

  views(): View[] {
    return [...this.#views.values()];
  }
}

/** The app's collections by name. */
export class Catalog implements CollectionCatalog {
  readonly #collections: ReadonlyMap<string, CollectionImpl>;

  constructor(collections: readonly CollectionImpl[]) {
    this.#collections = new Map(collections.map((c) => [c.name, c]));
  }

  get(name: string): CollectionImpl {
    const collection = this.#collections.get(name);
    if (!collection) {
      const known = this.names();
      throw new IrserveError(
        'ERR_COLLECTION_NOT_FOUND',
        `collection ${quote(name)} not found (collections: ${known.length > 0 ? known.join(', ') : 'none'})`,
        {
          details: { collection: name },
        },
      );
    }
    return collection;
  }

  has(name: string): boolean {
    return this.#collections.has(name);
  }

  names(): string[] {
    return [...this.#collections.keys()];
  }

  all(): CollectionImpl[] {
    return [...this.#collections.values()];
  }
}
