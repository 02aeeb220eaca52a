/**
 * The search of an index served from its files (it needs more than its memory budget, or a file
 * of it passes 4 GiB): `bmp`, and `auto` up to its depth, prune with block bounds derived from
 * the lists read through the page cache and score passages read from the forward index's files,
 * when the bounds fit the budget beside the head; every other case answers exhaustively from the
 * files. Both return what the index in memory returns.
 */
import { formatBytes } from 'irserve/plugin';
import { hasArrayFiles, type SparseManifest } from '../index/manifest.js';
import type { OpeningSparseIndex } from '../index/open-index.js';
import type { SparseIndexHead } from '../index/types.js';
import { boundMatrixBytes, boundMatrixReserve } from '../search/bmp/bound-matrix.js';
import { bmpScratchInTurns, closeBmpScratch } from '../search/bmp/bmp-search.js';
import { openFileForward } from '../search/bmp/file-forward.js';
import { fileLists } from '../search/bmp/list-source.js';
import type { BoundsThreads } from '../search/bmp/split-bounds.js';
import { fileExhaustiveSearch, fileSearchScratch } from '../search/file-exhaustive.js';
import { autoSearch, bmpWith, type BoundSearch, type SearchStrategy } from './strategies.js';

/** The fewest bytes of pages a paged index is served with (16 pages of 16 KiB). */
export const MIN_LIST_CACHE = 256 << 10;

/** How an index served from its files spends the budget left once its head is in memory. */
export interface PagedPlan {
  /** Whether `bmp` (or `auto`) prunes: its bounds fit. */
  bmp: boolean;
  /** Bytes of the inverted lists' page cache, and of the forward index's (0 without `bmp`). */
  listCacheBytes: number;
  forwardCacheBytes: number;
  /** What the start log says when the configured strategy answers exhaustively. */
  note?: string;
}

/**
 * The plan for an index whose head is read: `free` bytes of the budget are left beside it.
 * `bmp` and `auto` reserve what their bounds may take at most (known from the list lengths),
 * the forward offsets and the longest list's buffers, and need 2 x 256 KiB of pages besides.
 *
 * @example pagedPlan(manifest, head, 48 << 20, 64 << 20, 'bmp').bmp
 */
export function pagedPlan(
  manifest: SparseManifest,
  head: SparseIndexHead,
  free: number,
  budget: number,
  strategy: SearchStrategy,
): PagedPlan {
  const exhaustive = (note: string): PagedPlan => ({
    bmp: false,
    listCacheBytes: free,
    forwardCacheBytes: 0,
    note,
  });
  if (strategy !== 'bmp' && strategy !== 'auto')
    return exhaustive(
      `search "${strategy}" answers exhaustively from the files (bmp and auto prune from them)`,
    );
  if (!hasArrayFiles(manifest))
    return exhaustive(
      `the index (format version ${manifest.version}) predates page checksums, so search "${strategy}" answers exhaustively from its files: rebuild it with irserve-build-sparse-index to serve bmp from them`,
    );
  const reserve = bmpReserve(head);
  const rest = free - reserve;
  if (rest < 2 * MIN_LIST_CACHE)
    return exhaustive(
      `search "${strategy}" needs up to ${formatBytes(reserve)} for its block bounds and ${formatBytes(2 * MIN_LIST_CACHE)} of pages beside the head, more than config.memory_budget leaves (${formatBytes(free)} of ${formatBytes(budget)}), so it answers exhaustively from the files: raise memory_budget to ${formatBytes(budget - rest + 2 * MIN_LIST_CACHE)} or more for bmp`,
    );
  const lists = strategy === 'bmp' ? MIN_LIST_CACHE : Math.floor(rest / 2);
  return { bmp: true, listCacheBytes: lists, forwardCacheBytes: rest - lists };
}

/** The most `bmp` holds besides the page caches: bounds, forward offsets, list buffers. */
function bmpReserve(head: SparseIndexHead): number {
  const offsets = head.invertedOffsets;
  const length = (term: number) => offsets[term + 1]! - offsets[term]!;
  let longest = 0;
  for (let t = 0; t < head.terms.length; t++) longest = Math.max(longest, length(t));
  return (
    boundMatrixReserve(head.passages, head.terms.length, length) +
    4 * (head.passages + 1) +
    8 * longest
  );
}

export interface PagedSearch {
  search: BoundSearch;
  /** Settles once `bmp`'s bounds are derived (at once without them); rejects on damage. */
  prepared: Promise<void>;
  /** Bytes held besides the head and the lists' pages. */
  residentBytes(): number;
  close(): Promise<void>;
}

/**
 * The search of `opening` served from its files under `plan`: exhaustive from the files at once,
 * then, with `bmp`, the strategy once its bounds are derived (in turns, the service answering
 * meanwhile).
 *
 * @example const paged = pagedSearch(opening, plan, 'bmp'); await paged.prepared;
 */
export function pagedSearch(
  opening: OpeningSparseIndex,
  plan: PagedPlan,
  strategy: SearchStrategy,
  dir: string,
  signal?: AbortSignal,
  threads?: BoundsThreads,
): PagedSearch {
  const { head, postings, manifest } = opening;
  const scratch = fileSearchScratch(head);
  const exhaustive: BoundSearch = (query, options) =>
    fileExhaustiveSearch(postings, query, options, scratch);
  let current = exhaustive;
  let held = () => 0;
  let closeForward = () => Promise.resolve();
  const prepared = !plan.bmp
    ? Promise.resolve()
    : openFileForward(dir, manifest, plan.forwardCacheBytes, {
        ...(signal ? { signal } : {}),
      }).then(async (forward) => {
        closeForward = () => forward.close();
        const bmpScratch = await bmpScratchInTurns(
          fileLists(head, postings),
          forward.read,
          { threads },
          signal,
        ).catch(async (error: unknown) => {
          await forward.close();
          closeForward = () => Promise.resolve();
          throw error;
        });
        const bounds = boundMatrixBytes(bmpScratch.matrix, head.terms.length);
        held = () => bounds + forward.residentBytes();
        closeForward = async () => {
          await closeBmpScratch(bmpScratch);
          await forward.close();
        };
        const bmp = bmpWith(bmpScratch);
        current = strategy === 'auto' ? autoSearch(head.passages, bmp, exhaustive) : bmp;
      });
  return {
    search: (query, options) => current(query, options),
    prepared,
    residentBytes: () => held(),
    close: async () => {
      await prepared.catch(() => undefined);
      await closeForward();
    },
  };
}
