import type { FaissIndexData } from '../formats/index.js';
import { FlatIndex } from './flat.js';
import { IvfIndex } from './ivf.js';
import type { SearchOptions, SearchResult, VectorIndex } from './types.js';

/**
 * Turns a FAISS index read by `readFaissIndex` into an index of this package: `IndexFlat*` to
 * Flat, `IndexIVFFlat` to IVF-Flat (faiss's centroids, lists and nprobe kept), an HNSW over
 * flat storage to an exact Flat search over that storage (exact is at least as good; its graph
 * is not reused), `IndexIDMap` to its inner index with labels mapped to the external ids.
 */
export function fromFaiss(data: FaissIndexData, threads = 0): VectorIndex {
  switch (data.kind) {
    case 'flat':
      return new FlatIndex(data.vectors, data.dim, data.metric, { threads, factory: 'Flat' });
    case 'hnsw-flat':
      return new FlatIndex(data.vectors, data.dim, data.metric, { threads, factory: 'Flat' });
    case 'ivf-flat':
      return ivfFromFaiss(data, threads);
    case 'id-map':
      return new RelabeledIndex(fromFaiss(data.index, threads), data.ids);
  }
}

function ivfFromFaiss(data: Extract<FaissIndexData, { kind: 'ivf-flat' }>, threads: number) {
  const { dim, count, nlist } = data;
  const offsets = new Int32Array(nlist + 1);
  const ids = new Int32Array(count);
  const vectors = new Float32Array(count * dim);
  let slot = 0;
  data.lists.forEach((list, l) => {
    offsets[l] = slot;
    for (let i = 0; i < list.ids.length; i++) {
      const id = list.ids[i]!;
      if (!Number.isInteger(id) || id < 0 || id >= count) {
        throw new Error(`FAISS IVF list ${l} holds id ${id}, outside 0..${count - 1}`);
      }
      ids[slot + i] = id;
    }
    vectors.set(list.vectors, slot * dim);
    slot += list.ids.length;
  });
  offsets[nlist] = slot;
  if (slot !== count)
    throw new Error(`FAISS IVF lists hold ${slot} vectors, the header says ${count}`);
  const factory = `IVF${nlist},Flat`;
  const nprobe = Math.max(1, data.nprobe);
  const ivf = { dim, metric: data.metric, nlist, centroids: data.centroids, offsets, ids, vectors };
  return new IvfIndex({ ...ivf, factory, nprobe }, { threads });
}

/** An index whose labels are translated through `ids` (FAISS `IndexIDMap`). */
class RelabeledIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: 'ip' | 'l2';
  readonly count: number;
  readonly factory: string;

  constructor(
    readonly inner: VectorIndex,
    readonly ids: Float64Array,
  ) {
    this.dim = inner.dim;
    this.metric = inner.metric;
    this.count = inner.count;
    this.factory = `IDMap,${inner.factory}`;
  }

  search(queries: Float32Array, k: number, options?: SearchOptions): SearchResult {
    const result = this.inner.search(queries, k, options);
    const { labels } = result;
    for (let i = 0; i < labels.length; i++) {
      if (labels[i]! >= 0) labels[i] = this.ids[labels[i]!]!;
    }
    return result;
  }
}
