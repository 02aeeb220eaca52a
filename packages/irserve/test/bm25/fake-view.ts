import { pino } from 'pino';
import type {
  Collection,
  CollectionCatalog,
  TextDocument,
  TextView,
} from '../../src/collections/types.js';
import type { EngineContext } from '../../src/engines/contract.js';
import { IrserveError } from '../../src/errors.js';

/** An in-memory text view; `version` is part of its fingerprint (bump it to "change" the corpus). */
export class MemoryTextView implements TextView {
  readonly kind = 'text' as const;
  readonly name: string;
  docs: TextDocument[];
  version = 1;
  enumerations = 0;

  constructor(docs: TextDocument[], name = 'text') {
    this.docs = docs;
    this.name = name;
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}
  async has(id: string): Promise<boolean> {
    return this.docs.some((doc) => doc.id === id);
  }
  async get(id: string): Promise<TextDocument | undefined> {
    return this.docs.find((doc) => doc.id === id);
  }
  async *documents(): AsyncIterable<TextDocument> {
    this.enumerations++;
    for (const doc of this.docs) yield doc;
  }
  async fingerprint(): Promise<string> {
    return `memory:${this.name}:${this.version}`;
  }
}

/** A catalog of one collection made of the given views (the first is the default). */
export function memoryCatalog(name: string, views: MemoryTextView[]): CollectionCatalog {
  const collection: Collection = {
    name,
    defaultView: views[0]!.name,
    viewKinds: Object.fromEntries(views.map((v) => [v.name, 'text' as const])),
    view(viewName?: string) {
      const view = views.find((v) => v.name === (viewName ?? views[0]!.name));
      if (!view) throw new IrserveError('ERR_COLLECTION_NOT_FOUND', `no view "${viewName}"`);
      return view;
    },
  };
  return {
    get(n) {
      if (n !== name) throw new IrserveError('ERR_COLLECTION_NOT_FOUND', `no collection "${n}"`);
      return collection;
    },
    has: (n) => n === name,
    names: () => [name],
  };
}

/** An engine context over a catalog, writing under `cacheDir`. */
export function engineContext(collections: CollectionCatalog, cacheDir: string): EngineContext {
  return {
    collections,
    logger: pino({ level: 'silent' }),
    cacheDir,
    configDir: cacheDir,
    interactive: false,
  };
}
