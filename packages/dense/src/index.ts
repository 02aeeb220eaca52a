/**
 * `@irserve/dense`: vector indexes (Flat, HNSW, IVF, PQ), the `.npy` shard reader, FAISS index
 * import, the `irserve-build-index` builder, `irserve-encode`, and the `Dense` and
 * `SentenceTransformerEngine` engines.
 */
export { Dense } from './engine/dense.js';
export { denseConfigSchema, parseDenseConfig, type DenseConfig } from './engine/config.js';
export { encoderConfigSchema, type EncoderConfig } from './engine/encoder-config.js';
export type { EmbeddingRequest } from './engine/embedding-request.js';
export {
  SentenceTransformerEngine,
  sentenceTransformerConfigSchema,
  type SentenceTransformerConfig,
} from './engine/sentence-transformer.js';
export { engines } from './engines.js';
