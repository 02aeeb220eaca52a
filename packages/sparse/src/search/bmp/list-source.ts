/**
 * The inverted lists the block bounds are derived from, term by term: those of an index in
 * memory, or those read from its files through a page cache (an index served from its files).
 */
import type { FilePostings } from '../../index/file-postings.js';
import type { Impacts, SparseIndexData, SparseIndexHead } from '../../index/types.js';
import { damagedList } from '../file-exhaustive.js';

/** One term's postings: passages ascending, their impacts; valid until the next `list`. */
export interface TermList {
  passages: Int32Array | Uint32Array;
  impacts: Impacts;
  length: number;
}

export interface ListSource {
  terms: number;
  passages: number;
  /** `impact = trunc(weight * quantization)`; 0: float impacts. */
  quantization: number;
  /** Postings of `term`. */
  length(term: number): number;
  list(term: number): TermList;
}

/**
 * The lists of an index in memory (passages as an Int32Array view, which V8 reads as small
 * integers rather than doubles).
 *
 * @example boundMatrixInTurns(memoryLists(index))
 */
export function memoryLists(index: SparseIndexData): ListSource {
  const { invertedOffsets: offsets, invertedImpacts: impacts } = index;
  const all = index.invertedPassages;
  const passages =
    index.passageIds.length < 2 ** 31
      ? new Int32Array(all.buffer, all.byteOffset, all.length)
      : all;
  return {
    terms: index.terms.length,
    passages: index.passageIds.length,
    quantization: index.quantization,
    length: (term) => offsets[term + 1]! - offsets[term]!,
    list: (term) => {
      const start = offsets[term]!;
      const end = offsets[term + 1]!;
      return {
        passages: passages.subarray(start, end),
        impacts: impacts.subarray(start, end),
        length: end - start,
      };
    },
  };
}

/**
 * The lists of an index read from its files (`postings`), each page checked against its CRC-32;
 * a passage id past the index is damage, refused.
 *
 * @example await boundMatrixInTurns(fileLists(opening.head, opening.postings))
 */
export function fileLists(head: SparseIndexHead, postings: FilePostings): ListSource {
  const offsets = head.invertedOffsets;
  return {
    terms: head.terms.length,
    passages: head.passages,
    quantization: head.quantization,
    length: (term) => offsets[term + 1]! - offsets[term]!,
    list: (term) => {
      const list = postings.read(term);
      for (let j = 0; j < list.length; j++)
        if (list.passages[j]! >= head.passages) throw damagedList(term, list.passages[j]!);
      return list;
    },
  };
}
