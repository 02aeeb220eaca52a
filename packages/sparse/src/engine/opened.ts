/**
 * What the LSR engine holds once started: the index head, its token lookup, subset labels per
 * passage, and the search (from the files while the index loads, then from memory).
 */
import { readSubsetMapping, subsetLabels, type SubsetLabels } from 'irserve/plugin';
import type { SparseManifest } from '../index/manifest.js';
import { startOpeningSparseIndex, type OpeningSparseIndex } from '../index/open-index.js';
import type { SparseIndexHead } from '../index/types.js';
import { loadingSearch } from './loading-search.js';
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
  /**
   * Settles once the whole index is in memory, every file matched its checksum and the search
   * has what it derives; rejects naming a damaged file. Already settled in `start` mode.
   */
  prepared: Promise<void>;
}

/**
 * Opens the index at `indexPath` and the optional subset mapping (keyed by document id). In
 * `background` mode it returns once the head is read, searching from the files until the rest
 * is in memory.
 *
 * @example const opened = await openLsr('indexes/splade', 'subsets.tsv', 'block-max');
 */
export async function openLsr(
  indexPath: string,
  mappingPath: string | undefined,
  search: SearchStrategy,
  prepare: PrepareMode = 'start',
  signal?: AbortSignal,
): Promise<OpenedLsr> {
  const opening = await startOpeningSparseIndex(indexPath, signal ? { signal } : {});
  const { head, manifest } = opening;
  if (search === 'impact-ordered' && manifest.impactSlice === undefined)
    throw new Error(
      `config.search is "impact-ordered" but the index at config.index_path (${indexPath}) was built without the impact-ordered lists: rebuild it with \`irserve-build-sparse-index <encoded corpus> ${indexPath} --impact_ordered\`, or choose another search (exhaustive, auto, max-score, block-max)`,
    );
  const lookup = new Map(head.terms.map((term, id) => [term, id]));
  let subsets: SubsetLabels | undefined;
  let passageLabels: Int32Array | undefined;
  if (mappingPath !== undefined) {
    subsets = subsetLabels(head.documentIds, await readSubsetMapping(mappingPath));
    const documentLabels = subsets.labels;
    passageLabels = Int32Array.from(head.passageDocs, (doc) => documentLabels[doc]!);
  }
  const serving =
    prepare === 'start'
      ? await preparedNow(opening, search, signal)
      : loadingSearch(indexPath, opening, search, signal);
  serving.prepared.catch(() => undefined); // the engine watches it; nobody else need
  return { head, manifest, lookup, subsets, passageLabels, ...serving };
}

/** The whole index loaded and the strategy's bounds derived before anything is served. */
async function preparedNow(
  opening: OpeningSparseIndex,
  strategy: SearchStrategy,
  signal: AbortSignal | undefined,
): Promise<{ search: BoundSearch; prepared: Promise<void> }> {
  const bound = preparedSearch(await opening.loaded, strategy, signal);
  await bound.ready;
  return { search: bound.search, prepared: bound.ready };
}
