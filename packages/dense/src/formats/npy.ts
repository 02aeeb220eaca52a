import type { NpyArray } from './types.js';

export interface WriteNpyOptions {
  /** Element type on disk; default float32 for floats, unicode for strings. */
  dtype?: 'float32' | 'float16' | 'unicode';
}

/** Parses `.npy` bytes. `file` only labels errors. */
export function parseNpy(_bytes: Uint8Array, _file = '<buffer>'): NpyArray {
  throw new Error('not implemented');
}

/** Reads a `.npy` file. */
export async function readNpy(_path: string): Promise<NpyArray> {
  throw new Error('not implemented');
}

/** Writes a `.npy` file holding a float matrix (float32 or float16) or a unicode array. */
export async function writeNpy(
  _path: string,
  _data: Float32Array | Uint16Array | string[],
  _shape: number[],
  _options: WriteNpyOptions = {},
): Promise<void> {
  throw new Error('not implemented');
}
