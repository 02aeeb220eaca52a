/**
 * Embedding shards as RoutIR's encoder writes them: `np.save(path, {"features", "ids"})`
 * (a pickled dict in an object `.npy`), or an `.npz` with `features` and `ids` members; or a
 * plain 2-D float `.npy` with its ids in a text file beside it (plain-shard.ts).
 */
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { FormatError } from './errors.js';
import { isNpyArray } from './pickle-numpy.js';
import { readWhole } from './io.js';
import { parseNpy } from './npy.js';
import { parseNpz } from './npz.js';
import { isPlainFeatures, plainShardIds } from './plain-shard.js';
import type { PickleValue, Shard } from './types.js';

const SHARD_EXTENSIONS = new Set(['.npy', '.npz']);

/**
 * Reads one embedding shard; rows holding a NaN are dropped (counted in `droppedNaN`).
 *
 * @example const { features, dim, count, ids } = await readShard('emb/shard-000.npy')
 */
export async function readShard(path: string): Promise<Shard> {
  const bytes = await readWhole(path);
  const ext = extname(path).toLowerCase();
  if (ext === '.npz') {
    const arrays = parseNpz(bytes, path);
    return toShard(arrays.get('features'), arrays.get('ids'), [...arrays.keys()], path);
  }
  if (ext !== '.npy')
    throw new FormatError(path, `unsupported shard extension ${JSON.stringify(ext)}`);
  const array = parseNpy(bytes, path, { ownsInput: true });
  if (isPlainFeatures(array)) {
    const [count = 0, dim = 0] = array.shape;
    const ids = await plainShardIds(path, count);
    return dropNaNRows({ features: array.data, dim, count, ids, droppedNaN: 0 });
  }
  const dict = array.kind === 'object' && array.shape.length === 0 ? array.data[0] : undefined;
  if (!(dict instanceof Map)) {
    throw new FormatError(
      path,
      'expected a pickled dict shard (np.save of {"features": ..., "ids": ...}) or a 2-D float array with an .ids file beside it',
    );
  }
  const keys = [...dict.keys()].map(String);
  return toShard(dict.get('features'), dict.get('ids'), keys, path);
}

function toShard(
  features: PickleValue | undefined,
  ids: PickleValue | undefined,
  keys: string[],
  file: string,
): Shard {
  if (features === undefined || ids === undefined) {
    throw new FormatError(
      file,
      `shard needs keys "features" and "ids", found ${JSON.stringify(keys)}`,
    );
  }
  if (!isNpyArray(features) || features.kind !== 'float') {
    const got = isNpyArray(features)
      ? features.kind === 'object'
        ? 'object'
        : features.dtype
      : 'a non-array';
    throw new FormatError(file, `"features" must be a float16/32/64 array, got ${got}`);
  }
  const [count = 0, dim = 0] = features.shape;
  if (features.shape.length !== 2) {
    throw new FormatError(
      file,
      `"features" must be 2-D (rows x dim), got shape (${features.shape.join(', ')})`,
    );
  }
  const idList = toIds(ids, file);
  if (idList.length !== count) {
    throw new FormatError(file, `${count} feature rows but ${idList.length} ids`);
  }
  return dropNaNRows({ features: features.data, dim, count, ids: idList, droppedNaN: 0 });
}

/** Ids as strings, from a list (str, int, bytes) or an array (unicode, bytes, int, object). */
function toIds(ids: PickleValue, file: string): string[] {
  let items: readonly unknown[];
  if (Array.isArray(ids)) items = ids;
  else if (isNpyArray(ids) && ids.shape.length === 1 && ids.kind !== 'float') {
    items = ids.kind === 'int' ? Array.from(ids.data) : ids.data;
  } else throw new FormatError(file, '"ids" must be a list or a 1-D array of strings or integers');
  const utf8 = new TextDecoder();
  return items.map((id, i) => {
    if (typeof id === 'string') return id;
    if (typeof id === 'number' || typeof id === 'bigint') return String(id);
    if (id instanceof Uint8Array) return utf8.decode(id);
    throw new FormatError(file, `id ${i} is not a string or an integer`);
  });
}

/** Drops rows with a NaN in place, as RoutIR does before indexing. */
function dropNaNRows(shard: Shard): Shard {
  const { features, dim, count, ids } = shard;
  let kept = 0;
  const keptIds: string[] = [];
  for (let row = 0; row < count; row++) {
    const start = row * dim;
    let nan = false;
    for (let j = start; j < start + dim; j++) {
      if (Number.isNaN(features[j])) {
        nan = true;
        break;
      }
    }
    if (nan) continue;
    if (kept !== row) features.copyWithin(kept * dim, start, start + dim);
    keptIds.push(ids[row]!);
    kept++;
  }
  if (kept === count) return shard;
  return {
    features: features.subarray(0, kept * dim),
    dim,
    count: kept,
    ids: keptIds,
    droppedNaN: count - kept,
  };
}

/**
 * The `.npy` / `.npz` files directly in `inputDir`, sorted by name (Python's `sorted` order).
 *
 * @example await listShards('emb')  // ['emb/shard-000.npy', 'emb/shard-001.npy']
 */
export async function listShards(inputDir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(inputDir, { withFileTypes: true });
  } catch (error) {
    throw new FormatError(inputDir, `cannot list shards: ${(error as Error).message}`);
  }
  const names = entries
    .filter(
      (e) =>
        (e.isFile() || e.isSymbolicLink()) && SHARD_EXTENSIONS.has(extname(e.name).toLowerCase()),
    )
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0)
    throw new FormatError(inputDir, 'no .npy or .npz shards in this directory');
  return names.map((name) => join(inputDir, name));
}
