/**
 * `@irserve/plaidx`: ColBERT / PLAID-X late-interaction retrieval for irserve: PLAID index
 * reading (ColBERT `.pt` and next-plaid `.npy` layouts), PLAID search, the `PLAIDX` engine
 * and the `irserve-build-plaid-index` builder.
 */
export { PLAIDX } from './engine/plaidx.js';
export { plaidxConfigSchema, type PlaidxConfig } from './engine/config.js';
export { engines } from './engines.js';
export { openPlaidIndex, type PlaidIndex, type OpenOptions } from './index/plaid-index.js';
export {
  plaidSearch,
  emptyStats,
  type PassageHits,
  type SearchStats,
} from './search/plaid-search.js';
export { depthFor, resolveDepth, type SearchDepth } from './search/depth.js';
export { maxSim } from './search/maxsim.js';
export { tokenMatrix, type TokenMatrix } from './search/query.js';
export { readTorchFile, parseTorchFile } from './formats/torch-file.js';
export type { Tensor, TensorDtype } from './formats/tensor.js';
export type { TorchValue } from '@irserve/onnx/formats';
export {
  buildPlaidIndex,
  type BuildPlaidOptions,
  type BuildPlaidReport,
} from './build/build-plaid.js';
export {
  memoryShards,
  fileShards,
  readTokenShard,
  measureTokenShard,
  type TokenShard,
  type ShardShape,
  type ShardSource,
} from './build/token-shards.js';
