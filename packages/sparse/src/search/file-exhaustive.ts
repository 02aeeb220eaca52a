/**
 * Exhaustive scoring with the posting lists read from the index files term by term: how an
 * index answers while its lists are still loading into memory. Float accumulators (the largest
 * impact of each term is not known before the block lists load) sum the same integers, in the
 * same term order, as the in-memory search: the results are identical to every strategy's.
 */
import type { FilePostings } from '../index/file-postings.js';
import type { SparseIndexHead } from '../index/types.js';
import { select } from './exhaustive.js';
import type { QueryTerms } from './query-terms.js';
import type { PassageHits, SearchOptions } from './types.js';

/** One accumulator per passage, all zero between calls. */
export interface FileSearchScratch {
  floats: Float64Array;
}

/**
 * Scratch for `fileExhaustiveSearch` (one per concurrent searcher).
 *
 * @example const scratch = fileSearchScratch(head);
 */
export function fileSearchScratch(head: SparseIndexHead): FileSearchScratch {
  return { floats: new Float64Array(head.passages) };
}

/**
 * Scores every passage that shares a term with the query, reading each term's list from
 * `postings`.
 *
 * @example fileExhaustiveSearch(postings, query, { k: 10 }, fileSearchScratch(head))
 */
export function fileExhaustiveSearch(
  postings: FilePostings,
  query: QueryTerms,
  options: SearchOptions,
  scratch: FileSearchScratch,
): PassageHits {
  const accumulators = scratch.floats;
  let work = 0;
  for (let i = 0; i < query.terms.length; i++) {
    const weight = query.weights[i]!;
    const { passages, impacts, length } = postings.read(query.terms[i]!);
    for (let j = 0; j < length; j++) {
      const passage = passages[j]!;
      // These lists are read before their checksum is checked: an id past the passages is
      // damage (a typed array would drop the write silently), never a result.
      if (passage >= accumulators.length) throw damagedList(query.terms[i]!, passage);
      accumulators[passage]! += weight * impacts[j]!;
    }
    work += length;
  }
  const { top, scored } = select(accumulators, options);
  return { ...top.sorted(), work, scored };
}

/** The error for a list holding a passage past the index's (read before its checksum). */
export function damagedList(term: number, passage: number): Error {
  return new Error(
    `inverted.passages holds passage ${passage} in the list of term ${term}, past the index's passages (a damaged index: rebuild or copy it again)`,
  );
}
