/**
 * The search of an index that serves before it is in memory (`prepare: background`): exhaustive
 * scoring from the files while the lists load, then the configured strategy in memory, then,
 * for `bmp` and `auto`, the strategy with its bounds. Every stage returns the same results.
 */
import type { OpeningSparseIndex } from '../index/open-index.js';
import { fileExhaustiveSearch, fileSearchScratch } from '../search/file-exhaustive.js';
import type { BoundsThreads } from '../search/bmp/split-bounds.js';
import { preparedSearch, type BoundSearch, type SearchStrategy } from './strategies.js';

/**
 * A search that answers at once from the files of the index, and `prepared`, which settles when
 * the strategy runs from memory with all it derives (rejecting as `opening.load()` does), and
 * `close`, which ends the threads `bmp` sums its bounds with.
 *
 * @example const { search, prepared } = loadingSearch(opening, 'auto');
 */
export function loadingSearch(
  opening: OpeningSparseIndex,
  strategy: SearchStrategy,
  signal?: AbortSignal,
  threads?: BoundsThreads,
): { search: BoundSearch; prepared: Promise<void>; close: () => Promise<void> } {
  const { head, postings } = opening;
  const scratch = fileSearchScratch(head);
  let current: BoundSearch = (query, options) =>
    fileExhaustiveSearch(postings, query, options, scratch);
  let close = () => Promise.resolve();
  const prepared = opening.load().then(
    async (index) => {
      const bound = preparedSearch(index, strategy, signal, threads);
      close = bound.close;
      current = bound.search;
      await postings.close();
      return bound.ready;
    },
    async (error: unknown) => {
      await postings.close();
      throw error;
    },
  );
  return {
    search: (query, options) => current(query, options),
    prepared,
    close: async () => {
      await prepared.catch(() => undefined);
      await close();
    },
  };
}
