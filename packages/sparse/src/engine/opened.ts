/**
 * What the LSR engine holds once started: the index head, its token lookup, subset labels per
 * passage, and the search (from the files while the index loads, then from memory).
 */
import { formatBytes, readSubsetMapping, subsetLabels, type SubsetLabels } from 'irserve/plugin';
import { ARRAY_FILES, STRING_FILES, arrayFileName } from '../index/files.js';
import type { SparseManifest } from '../index/manifest.js';
import { startOpeningSparseIndex, type OpeningSparseIndex } from '../index/open-index.js';
import type { SparseIndexHead } from '../index/types.js';
import type { BoundsThreads } from '../search/bmp/split-bounds.js';
import { loadingSearch } from './loading-search.js';
import { MIN_LIST_CACHE, pagedPlan, pagedSearch, type PagedPlan } from './paged-search.js';
import { preparedSearch, type BoundSearch, type SearchStrategy } from './strategies.js';

export type { BoundSearch, SearchStrategy } from './strategies.js';

/** When the checksums are checked and the bounds derived: before serving, or while serving. */
export type PrepareMode = 'start' | 'background';

export interface OpenedLsr {
  /** What serving needs at once; the rest of the index loads behind `search`. */
  head: SparseIndexHead;
  manifest: SparseManifest;
  lookup: Map<string, number>;
  /** Document subsets, and the label of each passage (its document's). */
  subsets: SubsetLabels | undefined;
  passageLabels: Int32Array | undefined;
  search: BoundSearch;
  /** `memory`: the index is (or is being) read into memory; `paged`: served from its files. */
  storage: 'memory' | 'paged';
  /**
   * Served from its files: whether the strategy prunes there (`bmp`, `auto`) or answers
   * exhaustively, and why (the start log says it).
   */
  paged?: { search: 'bmp' | 'exhaustive'; note?: string };
  /** Bytes of the index held in memory now (the whole index once loaded, or head and pages). */
  residentBytes(): number;
  /** Closes the files the search reads (paged, or while loading) and ends its threads. */
  close(): Promise<void>;
  /**
   * Settles once the whole index is in memory, every file matched its checksum and the search
   * has what it derives; rejects naming a damaged file. Already settled in `start` mode.
   */
  prepared: Promise<void>;
}

/**
 * Opens the index at `indexPath` and the optional subset mapping (keyed by document id). In
 * `background` mode it returns once the head is read, searching from the files until the rest
 * is in memory; under a `memoryBudget` smaller than the index it always searches from the files.
 * `threads` sum `bmp`'s block bounds per query (one by default).
 *
 * @example const opened = await openLsr('indexes/splade', 'subsets.tsv', 'block-max');
 */
export async function openLsr(
  indexPath: string,
  mappingPath: string | undefined,
  search: SearchStrategy,
  prepare: PrepareMode = 'start',
  options: {
    signal?: AbortSignal;
    memoryBudget?: number | undefined;
    threads?: BoundsThreads | undefined;
  } = {},
): Promise<OpenedLsr> {
  const { signal, memoryBudget, threads } = options;
  let plan: PagedPlan | undefined;
  const opening = await startOpeningSparseIndex(indexPath, {
    ...(signal ? { signal } : {}),
    listCacheBytes: (manifest, head) => {
      if (!servedPaged(manifest, memoryBudget)) return DEFAULT_LIST_CACHE;
      const free = listCacheBytes(manifest, memoryBudget!, indexPath);
      plan = pagedPlan(manifest, head, free, memoryBudget!, search);
      return plan.listCacheBytes;
    },
  });
  try {
    return await serve(opening, { indexPath, mappingPath, search, prepare, signal, plan, threads });
  } catch (error) {
    await opening.postings.close();
    throw error;
  }
}

async function serve(
  opening: OpeningSparseIndex,
  o: {
    indexPath: string;
    mappingPath: string | undefined;
    search: SearchStrategy;
    prepare: PrepareMode;
    signal: AbortSignal | undefined;
    /** Set when the index is served from its files. */
    plan: PagedPlan | undefined;
    threads: BoundsThreads | undefined;
  },
): Promise<OpenedLsr> {
  const { head, manifest, postings } = opening;
  if (o.search === 'impact-ordered' && manifest.impactSlice === undefined)
    throw new Error(
      `config.search is "impact-ordered" but the index at config.index_path (${o.indexPath}) was built without the impact-ordered lists: rebuild it with \`irserve-build-sparse-index <encoded corpus> ${o.indexPath} --impact_ordered\`, or choose another search (exhaustive, auto, max-score, block-max)`,
    );
  const lookup = new Map(head.terms.map((term, id) => [term, id]));
  let subsets: SubsetLabels | undefined;
  let passageLabels: Int32Array | undefined;
  if (o.mappingPath !== undefined) {
    subsets = subsetLabels(head.documentIds, await readSubsetMapping(o.mappingPath));
    const documentLabels = subsets.labels;
    passageLabels = Int32Array.from(head.passageDocs, (doc) => documentLabels[doc]!);
  }
  const headBytes = headBytesOf(manifest);
  if (o.plan !== undefined) {
    const paged = pagedSearch(opening, o.plan, o.search, o.indexPath, o.signal, o.threads);
    if (o.prepare === 'start') await paged.prepared;
    return {
      ...{ head, manifest, lookup, subsets, passageLabels },
      search: paged.search,
      prepared: paged.prepared,
      storage: 'paged',
      paged: {
        search: o.plan.bmp ? 'bmp' : 'exhaustive',
        ...(o.plan.note === undefined ? {} : { note: o.plan.note }),
      },
      residentBytes: () => headBytes + postings.residentBytes + paged.residentBytes(),
      close: async () => {
        await paged.close();
        await postings.close();
      },
    };
  }
  const serving =
    o.prepare === 'start'
      ? await preparedNow(opening, o.search, o.signal, o.threads)
      : loadingSearch(opening, o.search, o.signal, o.threads);
  let loaded = false;
  serving.prepared.then(
    () => (loaded = true),
    () => undefined, // the engine watches it; nobody else need
  );
  return {
    head,
    manifest,
    lookup,
    subsets,
    passageLabels,
    search: serving.search,
    prepared: serving.prepared,
    storage: 'memory',
    residentBytes: () => (loaded ? inMemoryBytes(manifest) : headBytes + postings.residentBytes),
    close: async () => {
      await postings.close();
      await serving.close();
    },
  };
}

/**
 * Whether the index is served from its files: when it needs more than the memory budget. (A
 * file past 4 GiB loads into memory as any other, a slice at a time.)
 *
 * @example servedPaged(manifest, 8 << 30) // true for an index of 12 GB
 */
export function servedPaged(manifest: SparseManifest, memoryBudget: number | undefined): boolean {
  return memoryBudget !== undefined && inMemoryBytes(manifest) > memoryBudget;
}

/** Bytes of list pages kept while the index loads into memory anyway. */
const DEFAULT_LIST_CACHE = 64 << 20;

/** Bytes of the index's files: what it holds in memory once loaded (the bounds besides). */
function inMemoryBytes(manifest: SparseManifest): number {
  return Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
}

/** Bytes of what is read before serving: the list offsets, the passage-to-document map, ids. */
function headBytesOf(manifest: SparseManifest): number {
  const names = [
    ...ARRAY_FILES.filter((file) => file.head).map((file) =>
      arrayFileName(file, manifest.impactType),
    ),
    ...STRING_FILES.filter((file) => file.field !== 'passageIds').flatMap((file) =>
      file.offsets === undefined ? [file.name] : [file.name, file.offsets],
    ),
  ];
  // Strings take about twice their JSON bytes in memory.
  return names.reduce((sum, name) => sum + 2 * (manifest.files[name]?.bytes ?? 0), 0);
}

/** The budget left for list pages once the head is in memory; refused when nothing is left. */
function listCacheBytes(manifest: SparseManifest, budget: number, indexPath: string): number {
  const head = headBytesOf(manifest);
  if (budget - head < MIN_LIST_CACHE)
    throw new Error(
      `config.memory_budget: ${formatBytes(budget)} is less than the head of the index at ${indexPath} needs in memory (${formatBytes(head)}, its list offsets, passage-to-document map, terms and document ids) plus ${formatBytes(MIN_LIST_CACHE)} of list pages; raise it`,
    );
  return budget - head;
}

/** The whole index loaded and the strategy's bounds derived before anything is served. */
async function preparedNow(
  opening: OpeningSparseIndex,
  strategy: SearchStrategy,
  signal: AbortSignal | undefined,
  threads: BoundsThreads | undefined,
): Promise<{ search: BoundSearch; prepared: Promise<void>; close: () => Promise<void> }> {
  const bound = preparedSearch(await opening.load(), strategy, signal, threads);
  await opening.postings.close();
  await bound.ready;
  return { search: bound.search, prepared: bound.ready, close: bound.close };
}
