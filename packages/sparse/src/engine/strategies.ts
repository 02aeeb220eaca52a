/**
 * The search strategies of the LSR engine, each bound to its index and scratch: what `search`
 * in the config names, and how `bmp` and `auto` derive their bounds (at once or in turns).
 */
import type { SparseIndexData } from '../index/types.js';
import { hasImpactOrder } from '../index/types.js';
import { blockMaxScratch, blockMaxSearch } from '../search/block-max.js';
import {
  bmpScratch,
  bmpScratchInTurns,
  bmpSearch,
  closeBmpScratch,
  type BmpScratch,
} from '../search/bmp/bmp-search.js';
import { forwardView } from '../search/bmp/forward-view.js';
import { memoryLists } from '../search/bmp/list-source.js';
import type { BoundsThreads } from '../search/bmp/split-bounds.js';
import { exhaustiveScratch, exhaustiveSearch } from '../search/exhaustive.js';
import { impactOrderedScratch, impactOrderedSearch } from '../search/impact-ordered.js';
import { maxScoreScratch, maxScoreSearch } from '../search/max-score.js';
import type { QueryTerms } from '../search/query-terms.js';
import type { PassageHits, SearchOptions } from '../search/types.js';

export type SearchStrategy =
  'auto' | 'exhaustive' | 'max-score' | 'block-max' | 'bmp' | 'impact-ordered';

/**
 * `auto` searches with `bmp` up to this many passages, or one per 1,000 passages of the index
 * when that is more, exhaustively above. On the bench `bmp` was 4.5x exhaustive's speed at top
 * 10 on 100,000 passages, 1.3x at top 200 and 0.5x at top 1000 (the k-th score is then too low
 * to skip blocks); on 1,000,000 passages 5.4x-11.8x at top 10 and still 1.6x-1.8x at top 1000.
 */
export const AUTO_BMP_MAX_K = 200;

/** The deepest search `auto` runs with `bmp` on an index of `passages` passages. */
export function autoBmpMaxK(passages: number): number {
  return Math.max(AUTO_BMP_MAX_K, Math.floor(passages / 1000));
}

/** A search function bound to its index and its own scratch. */
export type BoundSearch = (query: QueryTerms, options: SearchOptions) => PassageHits;

/**
 * The chosen strategy with its scratch (reused: a batch runs its searches one after another).
 * `impact-ordered` on an index without the impact-ordered lists throws (`openLsr` says so
 * first, naming the config fields). `bmp` and `auto` derive their block bounds here, once.
 *
 * @example const search = boundSearch(index, 'max-score'); search(query, { k: 10 })
 */
export function boundSearch(index: SparseIndexData, strategy: SearchStrategy): BoundSearch {
  switch (strategy) {
    case 'auto':
      return autoSearch(
        index.passageIds.length,
        boundSearch(index, 'bmp'),
        boundSearch(index, 'exhaustive'),
      );
    case 'exhaustive': {
      const scratch = exhaustiveScratch(index);
      return (query, options) => exhaustiveSearch(index, query, options, scratch);
    }
    case 'max-score': {
      const scratch = maxScoreScratch(index);
      return (query, options) => maxScoreSearch(index, query, options, scratch);
    }
    case 'block-max': {
      const scratch = blockMaxScratch(index);
      return (query, options) => blockMaxSearch(index, query, options, scratch);
    }
    case 'bmp':
      return bmpWith(bmpScratch(index));
    case 'impact-ordered': {
      if (!hasImpactOrder(index)) throw new Error('the index has no impact-ordered lists');
      const scratch = impactOrderedScratch(index);
      return (query, options) => impactOrderedSearch(index, query, options, scratch);
    }
  }
}

/** A search being prepared: `ready` settles once it has all it derives; `close` ends its threads. */
export interface PreparedSearch {
  search: BoundSearch;
  ready: Promise<void>;
  close: () => Promise<void>;
}

/**
 * `boundSearch`, with what `bmp` and `auto` derive (their block bounds) done a step at a time
 * after it returns: until `ready`, they search exhaustively, which returns the same results.
 * `threads` sum `bmp`'s block bounds of each query (one by default).
 *
 * @example const { search, ready } = preparedSearch(index, 'auto'); await ready;
 */
export function preparedSearch(
  index: SparseIndexData,
  strategy: SearchStrategy,
  signal?: AbortSignal,
  threads?: BoundsThreads,
): PreparedSearch {
  if (strategy !== 'bmp' && strategy !== 'auto')
    return {
      search: boundSearch(index, strategy),
      ready: Promise.resolve(),
      close: () => Promise.resolve(),
    };
  const exhaustive = boundSearch(index, 'exhaustive');
  let prepared: BoundSearch | undefined;
  const scratch = bmpScratchInTurns(memoryLists(index), forwardView(index), { threads }, signal);
  const ready = scratch.then((derived) => {
    const bmp = bmpWith(derived);
    prepared = strategy === 'auto' ? autoSearch(index.passageIds.length, bmp, exhaustive) : bmp;
  });
  return {
    search: (query, options) => (prepared ?? exhaustive)(query, options),
    ready,
    close: async () => {
      const derived = await scratch.catch(() => undefined);
      if (derived) await closeBmpScratch(derived);
    },
  };
}

/**
 * `bmp` over bounds already derived.
 *
 * @example const search = bmpWith(await bmpScratchInTurns(lists, forward));
 */
export function bmpWith(scratch: BmpScratch): BoundSearch {
  return (query, options) => bmpSearch(query, options, scratch);
}

/**
 * `auto` on an index of `passages` passages: `bmp` up to `autoBmpMaxK` passages asked for,
 * exhaustive deeper.
 *
 * @example autoSearch(head.passages, bmp, exhaustive)
 */
export function autoSearch(
  passages: number,
  bmp: BoundSearch,
  exhaustive: BoundSearch,
): BoundSearch {
  const deepest = autoBmpMaxK(passages);
  return (query, options) =>
    options.k <= deepest ? bmp(query, options) : exhaustive(query, options);
}
