/**
 * `@irserve/gpu`: GGUF embedding and ranking models on llama.cpp (CUDA, Vulkan or CPU) as the
 * `GgufEmbedding` and `GgufReranker` engines, the llama.cpp runtime and model pool they share,
 * and the GGUF writer the test fixtures use. See docs/gpu.md.
 */
export { engines } from './engines.js';
export { GgufEmbedding } from './engine/gguf-embedding.js';
export { GgufReranker } from './engine/gguf-reranker.js';
export {
  ggufEmbeddingConfigSchema,
  parseGgufEmbeddingConfig,
  type GgufEmbeddingConfig,
} from './engine/embedding-config.js';
export {
  ggufRerankerConfigSchema,
  parseGgufRerankerConfig,
  type GgufRerankerConfig,
} from './engine/reranker-config.js';
export { ggufEmbedder, type GgufEmbedder, type EmbedderSettings } from './engine/gguf-embedder.js';
export { ggufRanker, type GgufRanker, type RankerSettings } from './engine/gguf-ranker.js';
export {
  LLAMA_DEVICES,
  BACKEND_PACKAGES,
  installStep,
  missingBackend,
  type GpuBackend,
  type LlamaDevice,
} from './llama/device.js';
export { openRuntime, loadPrebuilt, type LlamaRuntime, type LoadBackend } from './llama/runtime.js';
export {
  GgufModelPool,
  type GgufLease,
  type ModelRequest,
  type GpuLayers,
} from './llama/model-pool.js';
export { readModelFacts, checkRole, type ModelFacts, type ModelRole } from './llama/model-kind.js';
export { checkFitsGpu, formatBytes } from './llama/memory.js';
export { checkGpuIndex, assignGpu, nvidiaGpuCount } from './llama/gpu-assignment.js';
export { writeGguf, type GgufTensor, type GgufValue } from './gguf/gguf-writer.js';
export { bertGguf, TINY_BERT, type BertShape } from './gguf/bert-gguf.js';
