import type { NpyArray } from './types.js';

/** Reads every `.npy` member of an `.npz` archive, keyed by name without `.npy`. */
export async function readNpz(_path: string): Promise<Map<string, NpyArray>> {
  throw new Error('not implemented');
}
