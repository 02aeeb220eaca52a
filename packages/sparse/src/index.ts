/**
 * `@irserve/sparse`: learned sparse retrieval (SPLADE) for irserve: the impact index builder
 * (`irserve-build-sparse-index`), exhaustive and safe pruned search (MaxScore, block-max, bmp), and
 * the `LSR` engine (alias `Sparse`).
 */
export { LSR, Sparse } from './engine/lsr.js';
export { lsrConfigSchema, type LsrConfig } from './engine/config.js';
export { engines } from './engines.js';
export {
  buildSparseIndex,
  type BuildSparseOptions,
  type BuildSparseReport,
} from './build/build-index.js';
export { openSparseIndex, type OpenedSparseIndex } from './index/open-index.js';
export { writeIndex } from './index/write-index.js';
export { SparseIndexBuilder } from './index/index-builder.js';
export type { SparseIndexData } from './index/types.js';
export type { SparseManifest } from './index/manifest.js';
export { blockMaxSearch, blockMaxScratch } from './search/block-max.js';
export { bmpSearch, bmpScratch } from './search/bmp/bmp-search.js';
export { exhaustiveSearch, exhaustiveScratch } from './search/exhaustive.js';
export { maxScoreSearch, maxScoreScratch } from './search/max-score.js';
export { clusterOrder, DEFAULT_REORDER, type ReorderOptions } from './index/reorder.js';
export { queryTerms, type QueryTerms } from './search/query-terms.js';
export { TeiSparseEncoder } from './encoders/tei.js';
export type { SparseEncoder, SparseVector } from './encoders/types.js';
