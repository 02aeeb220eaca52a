import type { Shard } from './types.js';

/** Reads one embedding shard (`.npy` pickled dict, or `.npz` with features and ids). */
export async function readShard(_path: string): Promise<Shard> {
  throw new Error('not implemented');
}

/** The `.npy` / `.npz` files of `inputDir`, sorted by name; throws when there are none. */
export async function listShards(_inputDir: string): Promise<string[]> {
  throw new Error('not implemented');
}
