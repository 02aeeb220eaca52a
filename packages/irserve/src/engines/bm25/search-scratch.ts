/**
 * The scratch space a BM25 search reuses (one per index: its searches run one at a time,
 * synchronously), so a query allocates no accumulators.
 */
import type { BucketSelect } from './select.js';
import { TopKHeap } from './top-k-heap.js';

/** Largest window: essential lists are accumulated term by term inside it. */
export const MAX_WINDOW = 4096;

/**
 * Scratch space of one search: window accumulators (all zero between searches) and touched
 * slots, a reusable heap; exhaustive searches add one accumulator per document (when the index
 * has no WebAssembly kernel) and a bucket selection, made on first use.
 */
export interface SearchScratch {
  acc: Float64Array;
  touched: Int32Array;
  perDoc?: Float64Array;
  heap?: TopKHeap;
  /** Exhaustive searches with a large k: the matching documents, selected by buckets. */
  select?: BucketSelect;
}

/** Scratch for `maxScoreSearch`; reusable by sequential searches. */
export function createScratch(): SearchScratch {
  return {
    acc: new Float64Array(MAX_WINDOW),
    touched: new Int32Array(MAX_WINDOW),
    heap: new TopKHeap(16),
  };
}
