/**
 * Plain-data results of the file-format readers. Nothing here holds index logic: the vector
 * indexes and the engine turn these into searchable structures.
 */

/** Element types a `.npy` array or a pickled ndarray can hold, as readers report them. */
export type NpyFloatDtype = 'float16' | 'float32' | 'float64';
export type NpyIntDtype =
  'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'bool';

/**
 * A decoded array. Numeric data is always row-major (Fortran-order input is transposed) and
 * in host byte order. Floats widen or narrow to `Float32Array` because every consumer searches
 * in float32; integers go to `Float64Array` (exact up to 2^53, checked on read).
 */
export type NpyArray =
  | { kind: 'float'; dtype: NpyFloatDtype; shape: number[]; data: Float32Array }
  | { kind: 'int'; dtype: NpyIntDtype; shape: number[]; data: Float64Array }
  | { kind: 'string'; dtype: 'unicode' | 'bytes'; shape: number[]; data: string[] }
  | { kind: 'object'; shape: number[]; data: PickleValue[] };

/** A pickled dict: keys compared by value (strings and numbers), insertion order kept. */
export type PickleDict = Map<string | number | bigint | boolean | null, PickleValue>;

/** A tuple, kept apart from lists only so numpy's reconstruct states can be told apart. */
export interface PickleTuple {
  readonly kind: 'tuple';
  readonly items: readonly PickleValue[];
}

/** What the safe pickle reader can produce. Anything else is rejected while reading. */
export type PickleValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PickleValue[]
  | PickleTuple
  | PickleDict
  | Set<PickleValue>
  | NpyArray;

/** One embedding shard: `count` rows of `dim` floats and one id per row. */
export interface Shard {
  features: Float32Array;
  dim: number;
  count: number;
  ids: string[];
  /** Rows dropped because they held a NaN (RoutIR drops them too). */
  droppedNaN: number;
}

/** Distance of a FAISS index: inner product or squared L2. */
export type FaissMetric = 'ip' | 'l2';

/** The HNSW graph of a FAISS `IndexHNSW*`, as faiss stores it. */
export interface FaissHnswGraph {
  assignProbas: Float64Array;
  cumNeighborsPerLevel: Int32Array;
  /** Per vector: its number of levels (level + 1). */
  levels: Int32Array;
  /** Per vector: where its neighbors start in `neighbors` (length count + 1). */
  offsets: Float64Array;
  /** Neighbor ids, -1 for empty slots. */
  neighbors: Int32Array;
  entryPoint: number;
  maxLevel: number;
  efConstruction: number;
  efSearch: number;
}

/** A FAISS index read into plain data. Vector ids are positions unless wrapped in `id-map`. */
export type FaissIndexData =
  | { kind: 'flat'; metric: FaissMetric; dim: number; count: number; vectors: Float32Array }
  | {
      kind: 'ivf-flat';
      metric: FaissMetric;
      dim: number;
      count: number;
      nlist: number;
      nprobe: number;
      centroids: Float32Array;
      lists: { ids: Float64Array; vectors: Float32Array }[];
    }
  | {
      kind: 'hnsw-flat';
      metric: FaissMetric;
      dim: number;
      count: number;
      /** The flat storage, row i is HNSW node i: enough for an exact search. */
      vectors: Float32Array;
      graph: FaissHnswGraph;
    }
  | {
      kind: 'id-map';
      metric: FaissMetric;
      dim: number;
      count: number;
      /** External id of each inner position. */
      ids: Float64Array;
      index: FaissIndexData;
    };
