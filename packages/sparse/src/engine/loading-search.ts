/**
 * The search of an index that serves before it is in memory (`prepare: background`): exhaustive
 * scoring from the files while the lists load, then the configured strategy in memory, then,
 * for `bmp` and `auto`, the strategy with its bounds. Every stage returns the same results.
 */
import { FilePostings } from '../index/file-postings.js';
import type { OpeningSparseIndex } from '../index/open-index.js';
import { fileExhaustiveSearch, fileSearchScratch } from '../search/file-exhaustive.js';
import { preparedSearch, type BoundSearch, type SearchStrategy } from './strategies.js';

/**
 * A search that answers at once from the files of `dir`, and `prepared`, which settles when
 * the strategy runs from memory with all it derives (rejecting as `opening.loaded` does).
 *
 * @example const { search, prepared } = loadingSearch('indexes/splade', opening, 'auto');
 */
export function loadingSearch(
  dir: string,
  opening: OpeningSparseIndex,
  strategy: SearchStrategy,
  signal?: AbortSignal,
): { search: BoundSearch; prepared: Promise<void> } {
  const { head, manifest } = opening;
  const postings = new FilePostings(dir, manifest, head.invertedOffsets);
  const scratch = fileSearchScratch(head);
  let current: BoundSearch = (query, options) =>
    fileExhaustiveSearch(postings, query, options, scratch);
  const prepared = opening.loaded.then(
    (index) => {
      const bound = preparedSearch(index, strategy, signal);
      current = bound.search;
      postings.close();
      return bound.ready;
    },
    (error: unknown) => {
      postings.close();
      throw error;
    },
  );
  return { search: (query, options) => current(query, options), prepared };
}
