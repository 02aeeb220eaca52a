/**
 * `@irserve/dense`: vector indexes (Flat, HNSW, IVF, PQ), the `.npy` shard reader, FAISS index
 * import, the `irserve-build-index` builder and the `Dense` engine.
 */
export { Dense } from './engine/dense.js';
export { engines } from './engines.js';
