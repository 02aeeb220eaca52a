/**
 * `@irserve/onnx`: in-process models on ONNX Runtime, shared by irserve's extras. A model folder
 * (graph + tokenizer.json), a tokenizer with truncation, pairs, templates and padding, sessions
 * shared by reference count, typed outputs, pooling, a local text encoder and the
 * cross-encoder and monoT5 / mT5 reranker engines. See README.md for the API.
 */
export { engines } from './engines.js';
export { modelError, engineError } from './errors.js';
export {
  loadModelFolder,
  type LoadModelFolderOptions,
  type ModelFolder,
} from './folder/model-folder.js';
export {
  SEQ2SEQ_REQUIRED,
  loadSeq2SeqFolder,
  type Seq2SeqFiles,
  type Seq2SeqFolder,
} from './folder/seq2seq-folder.js';
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
export { readSpieceTokenizer, t5TokenizerJson } from './folder/spiece-tokenizer.js';
export { parseSentencePieceModel, type SentencePieceModel } from './folder/sentencepiece-model.js';
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
  type AcquireSeq2SeqOptions,
  type LoadedModel,
  type LoadedSeq2Seq,
  type ModelLease,
  type Seq2SeqLease,
} from './runtime/session-pool.js';
export { Seq2SeqModel, DECODER_INPUTS } from './runtime/seq2seq-model.js';
export { FirstStepGraph, type FirstStepModel } from './runtime/first-step.js';
export { ENCODER_INPUTS, type InputCheck } from './runtime/feeds.js';
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
export { PairScorer } from './rerank/pair-scorer.js';
export { uniquePairs, type Pair, type UniquePairs } from './rerank/unique-pairs.js';
export { LeasedReranker, type LoadedReranker } from './rerank/leased-reranker.js';
export { MT5Reranker, MonoT5Reranker } from './rerank/mt5-reranker.js';
export {
  MONOT5_PROMPT,
  mt5ConfigSchema,
  parseMT5Config,
  seq2seqOptions,
  type MT5Config,
} from './rerank/mt5-config.js';
export { MonoT5Prompt, type PromptLimits } from './rerank/mt5-prompt.js';
export { MonoT5Scorer } from './rerank/mt5-scorer.js';
export {
  PREDICTION_TOKENS,
  predictionTokens,
  type PredictionTokens,
} from './rerank/prediction-tokens.js';
