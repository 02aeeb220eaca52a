/**
 * Token-embedding shards, the builder's input: one `.npz` (`np.savez(features=, doclens=,
 * ids=)`) or pickled-dict `.npy` (`np.save(path, {...})`) per file, with `features` holding
 * one row per token, `doclens` the token count of each passage, and `ids` one id per passage.
 */
import { extname } from 'node:path';
import {
  FormatError,
  parseDescr,
  readNpy,
  readNpz,
  readNpzHeaders,
  type NpyArray,
  type PickleValue,
} from '@irserve/dense';

export interface TokenShard {
  /** `doclens` summed x `dim` floats. */
  features: Float32Array;
  dim: number;
  doclens: Int32Array;
  ids: string[];
}

/** A shard's size, known without its token embeddings. */
export interface ShardShape {
  passages: number;
  /** Tokens: rows of `features`. */
  rows: number;
  dim: number;
}

/** Where the builder gets its shards: a count and a loader, so shards are read one at a time. */
export interface ShardSource {
  readonly count: number;
  load(index: number): Promise<TokenShard>;
  /**
   * The shard's shape, checked as `load` checks it but for the embeddings' values, without
   * reading the embeddings where the format allows; sources without it are counted by `load`.
   */
  measure?(index: number): Promise<ShardShape>;
  /** Names the shard in errors and progress. */
  label(index: number): string;
}

function isArray(value: PickleValue | undefined): value is NpyArray {
  return typeof value === 'object' && value !== null && 'kind' in value && value.kind !== 'tuple';
}

function toIds(value: PickleValue | undefined, file: string): string[] {
  const items: readonly unknown[] | undefined = Array.isArray(value)
    ? value
    : isArray(value) && value.shape.length === 1 && value.kind !== 'float'
      ? Array.from(value.data as ArrayLike<unknown>)
      : undefined;
  if (!items)
    throw new FormatError(file, '"ids" must be a list or a 1-D array of strings or integers');
  const utf8 = new TextDecoder();
  return items.map((id, i) => {
    const text =
      typeof id === 'string'
        ? id
        : typeof id === 'number' || typeof id === 'bigint'
          ? String(id)
          : id instanceof Uint8Array
            ? utf8.decode(id)
            : undefined;
    if (text === undefined) throw new FormatError(file, `id ${i} is not a string or an integer`);
    // mapping.tsv holds one id per line after a tab.
    if (text === '' || /[\t\n\r]/.test(text))
      throw new FormatError(
        file,
        `id ${i} (${JSON.stringify(text)}) is empty or holds a tab or newline`,
      );
    return text;
  });
}

/**
 * Tokens per passage from a 1-D integer array or a list of integers (ColBERT writes doclens as a
 * Python list).
 */
function toLengths(value: PickleValue, file: string): Int32Array {
  const wrong = () =>
    new FormatError(
      file,
      '"doclens" must be a 1-D integer array or a list of integers (tokens per passage)',
    );
  if (isArray(value)) {
    if (value.kind !== 'int' || value.shape.length !== 1) throw wrong();
    return Int32Array.from(value.data);
  }
  if (!Array.isArray(value)) throw wrong();
  return Int32Array.from(value, (n) => {
    const length = typeof n === 'bigint' ? Number(n) : n;
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length > 0x7fffffff)
      throw wrong();
    return length;
  });
}

/** What the checks need to know of `features` before its values are read. */
interface FeatureKind {
  float: boolean;
  shape: readonly number[];
}

/**
 * The checks a shard passes before its embeddings are read: all three arrays are there,
 * `features` is a 2-D float array, `doclens` sums to its rows, and there is one id a passage.
 */
function checkPassages(
  features: FeatureKind | undefined,
  doclens: PickleValue | undefined,
  ids: PickleValue | undefined,
  file: string,
) {
  if (features === undefined || doclens === undefined || ids === undefined)
    throw new FormatError(file, 'a token shard needs the arrays "features", "doclens" and "ids"');
  if (!features.float || features.shape.length !== 2)
    throw new FormatError(file, '"features" must be a 2-D float array (tokens x dim)');
  const [rows = 0, dim = 0] = features.shape;
  const lengths = toLengths(doclens, file);
  let total = 0;
  for (const n of lengths) {
    if (n < 0) throw new FormatError(file, '"doclens" holds a negative length');
    total += n;
  }
  if (total !== rows)
    throw new FormatError(file, `"doclens" sums to ${total} but "features" has ${rows} rows`);
  const idList = toIds(ids, file);
  if (idList.length !== lengths.length)
    throw new FormatError(file, `${lengths.length} passages in "doclens" but ${idList.length} ids`);
  return { rows, dim, lengths, idList };
}

/** Checks and converts the three arrays of one shard. */
export function tokenShard(
  features: PickleValue | undefined,
  doclens: PickleValue | undefined,
  ids: PickleValue | undefined,
  file: string,
): TokenShard {
  const matrix = isArray(features) && features.kind === 'float' ? features : undefined;
  const kind =
    features === undefined
      ? undefined
      : { float: matrix !== undefined, shape: matrix?.shape ?? [] };
  const { dim, lengths, idList } = checkPassages(kind, doclens, ids, file);
  if (!matrix) throw new FormatError(file, '"features" must be a 2-D float array (tokens x dim)');
  for (let i = 0; i < matrix.data.length; i++) {
    if (!Number.isFinite(matrix.data[i]))
      throw new FormatError(
        file,
        `"features" holds a non-finite value at token ${Math.floor(i / dim)}`,
      );
  }
  return { features: matrix.data, dim, doclens: lengths, ids: idList };
}

/**
 * Reads one shard file.
 *
 * @example const { doclens, ids } = await readTokenShard('emb/part-000.npz')
 */
export async function readTokenShard(path: string): Promise<TokenShard> {
  const ext = extname(path).toLowerCase();
  if (ext === '.npz') {
    const arrays = await readNpz(path);
    return tokenShard(arrays.get('features'), arrays.get('doclens'), arrays.get('ids'), path);
  }
  const array = await readNpy(path);
  const dict = array.kind === 'object' && array.shape.length === 0 ? array.data[0] : undefined;
  if (!(dict instanceof Map))
    throw new FormatError(
      path,
      'expected a pickled dict (np.save of {"features", "doclens", "ids"}) or an .npz',
    );
  return tokenShard(dict.get('features'), dict.get('doclens'), dict.get('ids'), path);
}

/**
 * A shard file's shape: from the `.npy` headers of an `.npz` (its `features` data unread), or
 * by reading a pickled-dict `.npy` whole, which cannot be measured without parsing it.
 *
 * @example const { passages, rows, dim } = await measureTokenShard('emb/part-000.npz')
 */
export async function measureTokenShard(path: string): Promise<ShardShape> {
  if (extname(path).toLowerCase() !== '.npz') return shapeOf(await readTokenShard(path));
  const { headers, arrays } = await readNpzHeaders(path, ['doclens', 'ids']);
  const features = headers.get('features');
  const kind = features && {
    float: parseDescr(features.descr, `${path}:features.npy`).char === 'f',
    shape: features.shape,
  };
  const { rows, dim, lengths } = checkPassages(
    kind,
    arrays.get('doclens'),
    arrays.get('ids'),
    path,
  );
  return { passages: lengths.length, rows, dim };
}

/** The shape of a loaded shard. */
export function shapeOf(shard: TokenShard): ShardShape {
  // doclens sums to the rows (checked at load); features.length / dim is NaN at dim 0.
  const rows = shard.doclens.reduce((sum, n) => sum + n, 0);
  return { passages: shard.doclens.length, rows, dim: shard.dim };
}

/** A source over shard files. */
export function fileShards(paths: readonly string[]): ShardSource {
  return {
    count: paths.length,
    load: (i) => readTokenShard(paths[i]!),
    measure: (i) => measureTokenShard(paths[i]!),
    label: (i) => paths[i]!,
  };
}

/** A source over shards already in memory (tests, benchmarks, embedding pipelines). */
export function memoryShards(shards: readonly TokenShard[]): ShardSource {
  return {
    count: shards.length,
    load: (i) => Promise.resolve(shards[i]!),
    label: (i) => `shard ${i}`,
  };
}
