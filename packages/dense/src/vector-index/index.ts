/**
 * Vector indexes: exact Flat, HNSW (usearch) with optional SQ8 / SQfp16, IVF-Flat and IVF-PQ;
 * faiss-style factory strings; the on-disk format (`manifest.json` + data files + `index.ids`)
 * and FAISS import.
 */
export type { Metric, SearchOptions, SearchResult, VectorIndex } from './types.js';
export { parseFactory, SUPPORTED_FACTORIES } from './factory.js';
export type { FactorySpec, HnswQuantization } from './factory.js';
export { trainAndAdd } from './train.js';
export type { TrainOptions, TrainPhase } from './train-options.js';
export { FlatIndex } from './flat.js';
export { HnswIndex, HNSW_DEFAULTS } from './hnsw.js';
export { IvfIndex } from './ivf.js';
export { saveIndex } from './storage.js';
export { openIndex, FAISS_FILE } from './open.js';
export type { OpenedIndex } from './open.js';
export type { LoadOptions } from './load.js';
export { IDS_FILE, MANIFEST_FILE } from './manifest.js';
export type { Manifest, FileEntry } from './manifest.js';
export { fromFaiss } from './faiss-import.js';
