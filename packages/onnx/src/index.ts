/**
 * `@irserve/onnx`: in-process models on ONNX Runtime, shared by irserve's extras. A model folder
 * (graph + tokenizer.json), a tokenizer with truncation, pairs, templates and padding, sessions
 * shared by reference count, typed outputs, pooling, a local text encoder and the
 * cross-encoder reranker engine. See README.md for the API.
 */
export { engines } from './engines.js';
export { modelError, engineError } from './errors.js';
export {
  loadModelFolder,
  type LoadModelFolderOptions,
  type ModelFolder,
} from './folder/model-folder.js';
export {
  POOLING_NAMES,
  onnxConfigSchema,
  type OnnxConfig,
  type PoolingName,
} from './folder/onnx-config.js';
export {
  TextTokenizer,
  type EncodeOptions,
  type TextTokenizerOptions,
  type TokenizerInput,
} from './tokenizer/text-tokenizer.js';
export { padRows, type EncodedBatch, type EncodedRow } from './tokenizer/encoded-batch.js';
export { truncatePair, type TruncationStrategy } from './tokenizer/truncate.js';
export { fillTemplate, splitTemplate } from './tokenizer/template.js';
export {
  sessionOptions,
  sessionOptionsSchema,
  type SessionOptions,
} from './runtime/session-options.js';
export { ModelSession } from './runtime/model-session.js';
export {
  ONNX_DEVICES,
  CUDA_INSTALL_STEP,
  cudaProviderInstalled,
  onDevice,
  requestedDevice,
  type DeviceChoice,
  type OnnxDevice,
} from './runtime/device.js';
export {
  SessionPool,
  type AcquireOptions,
  type LoadedModel,
  type ModelLease,
} from './runtime/session-pool.js';
export { sessionPoolFor } from './runtime/context-pool.js';
export { inChunks } from './runtime/batches.js';
export { toFloatTensor, type FloatTensor } from './runtime/tensors.js';
export {
  clsPool,
  l2Normalize,
  lastTokenPool,
  maxPool,
  meanPool,
  pool,
  rowsOf,
} from './pooling/pooling.js';
export {
  TextEncoder,
  type EncodeTimings,
  type TextEncoderOptions,
} from './encoder/text-encoder.js';
export { CrossEncoderReranker } from './rerank/cross-encoder-reranker.js';
export {
  QWEN3_RERANKER_INSTRUCTION,
  QWEN3_RERANKER_TEMPLATE,
  crossEncoderConfigSchema,
  parseCrossEncoderConfig,
  type CrossEncoderConfig,
} from './rerank/config.js';
export { PairScorer, type Pair } from './rerank/pair-scorer.js';
