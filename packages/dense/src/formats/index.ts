/**
 * File formats of the dense extra: `.npy` / `.npz` embedding shards (RoutIR's pickled-dict
 * shards included), a safe pickle subset, and FAISS index files.
 */
export { readNpy, parseNpy, writeNpy } from './npy.js';
export type { WriteNpyOptions } from './npy.js';
export { readPickle } from './pickle.js';
export type { ParseOptions } from './pickle.js';
export { writeDictShard } from './shard-write.js';
export { readNpz } from './npz.js';
export { readNpzHeaders } from './npz-headers.js';
export type { NpzHeaders } from './npz-headers.js';
export type { NpyHeader } from './npy-header.js';
export { readShard, listShards } from './shard.js';
export { readFaissIndex, readIdsFile } from './faiss-read.js';
export { FormatError } from './errors.js';
export type * from './types.js';
