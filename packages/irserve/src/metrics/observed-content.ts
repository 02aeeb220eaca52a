import type { CollectionCatalog, ContentService } from '../collections/types.js';
import type { AppObserver } from './observer.js';

/**
 * The content service, counting each lookup by collection and outcome. A collection that does not
 * exist is counted under "" so that hostile names never become series.
 *
 * @example
 * const content = observedContent(app.core.content, app.core.collections, metrics);
 */
export function observedContent(
  content: ContentService,
  collections: CollectionCatalog,
  observer: AppObserver,
): ContentService {
  const label = (name: string) => (collections.has(name) ? name : '');
  return {
    lookup: async (request, options) => {
      try {
        const result = await content.lookup(request, options);
        observer.contentLookup(label(request.collection), 'found');
        return result;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        observer.contentLookup(
          label(request.collection),
          code === 'ERR_DOC_NOT_FOUND' ? 'not_found' : 'error',
        );
        throw error;
      }
    },
    open: () => content.open(),
    close: () => content.close(),
  };
}
