import type { FaissIndexData } from '../formats/index.js';
import { FlatIndex } from './flat.js';
import { IvfIndex } from './ivf.js';
import { rowCodec } from './row-codec.js';
import { MemoryRows } from './row-store.js';
import type { VectorIndex } from './types.js';

/**
 * Turns a FAISS index read by `readFaissIndex` into an index of this package: `IndexFlat*` to
 * Flat, `IndexIVFFlat` to IVF-Flat (faiss's centroids, lists and nprobe kept), an HNSW over
 * flat storage to an exact Flat search over that storage (exact is at least as good; its graph
 * is not reused), `IndexIDMap` to its inner index (labels are positions, as `index.ids` is).
 */
export function fromFaiss(data: FaissIndexData, threads = 0): VectorIndex {
  switch (data.kind) {
    case 'flat':
      return new FlatIndex(data.vectors, data.dim, data.metric, { threads, factory: 'Flat' });
    case 'hnsw-flat':
      return new FlatIndex(data.vectors, data.dim, data.metric, { threads, factory: 'Flat' });
    case 'ivf-flat':
      return ivfFromFaiss(data);
    case 'id-map':
      // Labels stay inner positions: `index.ids` lists ids in vector (insertion) order, which
      // is how RoutIR names results; faiss's int64 external ids are not document ids.
      return fromFaiss(data.index, threads);
  }
}

function ivfFromFaiss(data: Extract<FaissIndexData, { kind: 'ivf-flat' }>) {
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
  const rows = MemoryRows.of(new Uint8Array(vectors.buffer), dim * 4);
  const ivf = { dim, metric: data.metric, nlist, centroids: data.centroids, offsets, ids };
  return new IvfIndex({ ...ivf, rows, codec: rowCodec('f32', dim), factory, nprobe });
}
