/**
 * A collection whose one text view reads documents from a back-end by id (a row of a table,
 * a document of an index), so pipelines can rerank what the back-end found and `/content`
 * serves it, without a copy of the corpus on the irserve machine.
 */
import {
  IrserveError,
  type Collection,
  type LookupOptions,
  type TextDocument,
  type TextView,
} from 'irserve/plugin';

export interface DocumentSource {
  /**
   * The document with this id, or undefined when the back-end has none; the back-end's call is
   * cut once `options.signal` aborts (nobody waits for the document any more).
   */
  get(id: string, options?: LookupOptions): Promise<TextDocument | undefined>;
  /** Changes when the back-end's data changes, as far as the engine can tell. */
  fingerprint: string;
}

/**
 * @example
 * const collection = backendCollection('pg-docs', { fingerprint: 'postgres:docs', get: (id) => fetchRow(id) });
 * collection.view().get('d1');
 */
export function backendCollection(name: string, source: DocumentSource): Collection {
  const view: TextView = {
    kind: 'text',
    name: 'text',
    open: async () => undefined,
    close: async () => undefined,
    has: async (id) => (await source.get(id)) !== undefined,
    get: (id, options) => source.get(id, options),
    fingerprint: async () => source.fingerprint,
  };
  return {
    name,
    defaultView: 'text',
    viewKinds: { text: 'text' },
    view(viewName?: string) {
      if (viewName !== undefined && viewName !== 'text') {
        throw new IrserveError(
          'ERR_COLLECTION_NOT_FOUND',
          `collection '${name}' has no view '${viewName}' (views: text)`,
          { details: { collection: name, view: viewName } },
        );
      }
      return view;
    },
  };
}
