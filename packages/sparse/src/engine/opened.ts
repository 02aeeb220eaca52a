/**
 * What the LSR engine holds once started: the index, its token lookup, subset labels per
 * passage, and the search scratch (reused; a batch runs its searches one after another).
 */
import { readSubsetMapping, subsetLabels, type SubsetLabels } from 'irserve/plugin';
import { openSparseIndex } from '../index/open-index.js';
import type { SparseManifest } from '../index/manifest.js';
import type { SparseIndexData } from '../index/types.js';
import { blockMaxScratch, type BlockMaxScratch } from '../search/block-max.js';

export interface OpenedLsr {
  index: SparseIndexData;
  manifest: SparseManifest;
  lookup: Map<string, number>;
  /** Document subsets, and the label of each passage (its document's). */
  subsets: SubsetLabels | undefined;
  passageLabels: Int32Array | undefined;
  blockMax: BlockMaxScratch;
  accumulators: Float64Array | undefined;
}

/**
 * Opens the index at `indexPath` and the optional subset mapping (keyed by document id).
 *
 * @example const opened = await openLsr('indexes/splade', 'subsets.tsv', 'block-max');
 */
export async function openLsr(
  indexPath: string,
  mappingPath: string | undefined,
  search: 'block-max' | 'exhaustive',
): Promise<OpenedLsr> {
  const { index, manifest } = await openSparseIndex(indexPath);
  const lookup = new Map(index.terms.map((term, id) => [term, id]));
  let subsets: SubsetLabels | undefined;
  let passageLabels: Int32Array | undefined;
  if (mappingPath !== undefined) {
    subsets = subsetLabels(index.documentIds, await readSubsetMapping(mappingPath));
    const documentLabels = subsets.labels;
    passageLabels = Int32Array.from(index.passageDocs, (doc) => documentLabels[doc]!);
  }
  return {
    index,
    manifest,
    lookup,
    subsets,
    passageLabels,
    blockMax: blockMaxScratch(index),
    accumulators: search === 'exhaustive' ? new Float64Array(index.passageIds.length) : undefined,
  };
}
