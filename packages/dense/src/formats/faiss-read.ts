import type { FaissIndexData } from './types.js';

/** Reads a FAISS index file written by `faiss.write_index` into plain data. */
export async function readFaissIndex(_path: string): Promise<FaissIndexData> {
  throw new Error('not implemented');
}

/** Reads RoutIR's `index.ids`: one id per line, in vector order. */
export async function readIdsFile(_path: string): Promise<string[]> {
  throw new Error('not implemented');
}
