/**
 * Plain feature arrays as shards: a 2-D float `.npy` (`np.save("part-0.npy", features)`) with
 * its ids in a text file beside it, one per line in row order: `part-0.ids` (or
 * `part-0.ids.txt`, `part-0.txt`).
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FormatError } from './errors.js';
import { readIdsFile } from './faiss-read.js';
import type { NpyArray } from './types.js';

const ID_SUFFIXES = ['.ids', '.ids.txt', '.txt'];

/**
 * The ids file of a plain `.npy` shard, or a FormatError naming where it was looked for.
 *
 * @example await plainShardIds('emb/part-0.npy', 1000)  // reads emb/part-0.ids
 */
export async function plainShardIds(path: string, count: number): Promise<string[]> {
  const stem = join(dirname(path), basename(path).replace(/\.npy$/i, ''));
  for (const suffix of ID_SUFFIXES) {
    const file = stem + suffix;
    if (!(await stat(file).catch(() => undefined))?.isFile()) continue;
    const ids = await readIdsFile(file);
    if (ids.length !== count)
      throw new FormatError(path, `${count} feature rows but ${ids.length} ids in ${file}`);
    return ids;
  }
  throw new FormatError(
    path,
    `a plain 2-D feature array needs its ids beside it, one per line in row order: ${basename(stem)}.ids (or .ids.txt, .txt)`,
  );
}

/** Whether a parsed `.npy` is a plain 2-D float feature array (not a pickled dict). */
export function isPlainFeatures(array: NpyArray): array is Extract<NpyArray, { kind: 'float' }> {
  return array.kind === 'float' && array.shape.length === 2;
}
