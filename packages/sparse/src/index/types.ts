/** The in-memory shape of a sparse index, as built and as opened from disk. */

import type { IdList } from './id-table.js';

/** Impacts: quantised integers (16 bits) or float32 weights (float mode). */
export type Impacts = Uint16Array | Float32Array;

export interface SparseIndexData {
  /** `impact = trunc(weight * quantization)`; 0: float impacts. */
  quantization: number;
  /** Term id to token. */
  terms: string[];
  /** Inverted index: passages (ascending) and impacts of term t at `[offsets[t], offsets[t+1])`. */
  invertedOffsets: Uint32Array;
  invertedPassages: Uint32Array;
  invertedImpacts: Impacts;
  /**
   * The same postings per term (same offsets), cut into slices of `impactSlice` passages
   * (passage p in slice `floor(p / impactSlice)`), slices in passage order, and sorted by
   * impact inside each slice, largest first (passages ascending among ties). Only in indexes
   * built with `--impact_ordered` (they add about 40% to the index); all three or none.
   */
  impactPassages?: Uint32Array;
  impactImpacts?: Impacts;
  impactSlice?: number;
  /** Forward index: terms (ascending) and impacts of passage p at `[offsets[p], offsets[p+1])`. */
  forwardOffsets: Uint32Array;
  forwardTerms: Uint32Array;
  forwardImpacts: Impacts;
  /** Block-max lists: blocks (ascending) where term t occurs, and its largest impact there. */
  blockOffsets: Uint32Array;
  blockIds: Uint32Array;
  blockMax: Impacts;
  /** Passages per block (passage p is in block `floor(p / blockSize)`). */
  blockSize: number;
  /** Ids decoded on demand (`IdTable`) when opened from disk, string arrays when just built. */
  passageIds: IdList;
  documentIds: IdList;
  /** Document number of each passage (MaxP groups passages by it). */
  passageDocs: Uint32Array;
}

/**
 * What a search needs of an index besides the posting lists: read before it serves, while the
 * lists load (`startOpeningSparseIndex`).
 */
export type SparseIndexHead = Pick<
  SparseIndexData,
  'quantization' | 'terms' | 'documentIds' | 'passageDocs' | 'invertedOffsets' | 'blockSize'
> & { passages: number };

/** An index that holds the impact-ordered lists (what `search: impact-ordered` reads). */
export type ImpactOrderedIndex = SparseIndexData &
  Required<Pick<SparseIndexData, 'impactPassages' | 'impactImpacts' | 'impactSlice'>>;

/**
 * Whether `index` was built with the impact-ordered lists.
 *
 * @example if (!hasImpactOrder(index)) throw new Error('rebuild with --impact_ordered');
 */
export function hasImpactOrder(index: SparseIndexData): index is ImpactOrderedIndex {
  return (
    index.impactPassages !== undefined &&
    index.impactImpacts !== undefined &&
    index.impactSlice !== undefined
  );
}

export function passageCount(index: SparseIndexData): number {
  return index.passageIds.length;
}

export function blockCount(index: SparseIndexData): number {
  return Math.ceil(index.passageIds.length / index.blockSize);
}
