/**
 * `@irserve/dense`: vector indexes (Flat, HNSW, IVF, PQ), the `.npy` shard reader, FAISS index
 * import, the `irserve-build-index` builder, `irserve-encode`, and the `Dense` and
 * `SentenceTransformerEngine` engines.
 */
export { Dense, type DenseOptions } from './engine/dense.js';
export type { Embedder } from './engine/embedder.js';
export { denseConfigSchema, parseDenseConfig, type DenseConfig } from './engine/config.js';
export { encoderConfigSchema, type EncoderConfig } from './engine/encoder-config.js';
export type { EmbeddingRequest } from './engine/embedding-request.js';
export {
  SentenceTransformerEngine,
  sentenceTransformerConfigSchema,
  type SentenceTransformerConfig,
} from './engine/sentence-transformer.js';
export { engines } from './engines.js';
export { buildIndex } from './build/build-index.js';
export type { BuildIndexOptions, BuildReport } from './build/build-index.js';
export type { VectorShards } from './build/shard-passes.js';
// Shared with @irserve/plaidx, which reads PyTorch pickles and `.npy` files and clusters
// token embeddings with the same code.
export {
  FormatError,
  readNpy,
  readNpz,
  readNpzHeaders,
  readPickle,
  writeNpy,
  type NpyArray,
  type NpyHeader,
  type NpzHeaders,
  type PickleValue,
} from './formats/index.js';
export { parseNpyPreamble, npyPreamble } from './formats/npy.js';
export { PickleCursor } from './formats/pickle-cursor.js';
export { readWhole, writeChunks } from './formats/io.js';
export { decodeFloat16 } from './formats/float16.js';
export { parseDescr } from './formats/dtype.js';
export { kmeans, assign } from './vector-index/kmeans.js';
export type { KmeansOptions } from './vector-index/kmeans.js';
export { CentroidAssigner, type NearestCentroid } from './vector-index/centroid-assigner.js';
export { CentroidGraph, type CentroidGraphOptions } from './vector-index/centroid-graph.js';
export { dot } from './vector-index/kernels.js';
export { seededRandom, samplePositions, gatherRows } from './vector-index/random.js';
export { sha256File, combinedChecksum } from './vector-index/manifest.js';
export { defaultMemoryBudget } from './build/memory-budget.js';
