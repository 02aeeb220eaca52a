/**
 * FAISS index files as `faiss.write_index` writes them (faiss/impl/index_write.cpp), read into
 * plain data for irserve's own indexes: flat (IP/L2), IVF-Flat with array inverted lists,
 * HNSW-Flat (graph and flat storage) and IndexIDMap/IDMap2 around any of them.
 */
import { readFile } from 'node:fs/promises';
import { FaissCursor } from './faiss-cursor.js';
import { FormatError } from './errors.js';
import { readWhole } from './io.js';
import type { FaissHnswGraph, FaissIndexData, FaissMetric } from './types.js';

const SUPPORTED =
  'IxFI (IndexFlatIP), IxF2 (IndexFlatL2), IxFl (IndexFlat), IwFl (IndexIVFFlat), IHNf (IndexHNSWFlat), IxMp (IndexIDMap), IxM2 (IndexIDMap2)';

/** Indexes nest (IDMap > HNSW > Flat); deeper means a corrupt or hostile file. */
const MAX_DEPTH = 4;

interface Header {
  dim: number;
  count: number;
  metric: FaissMetric;
}

/**
 * Reads a FAISS index file into plain data.
 *
 * @example const index = await readFaissIndex('index.faiss'); if (index.kind === 'flat') ...
 */
export async function readFaissIndex(path: string): Promise<FaissIndexData> {
  const cursor = new FaissCursor(await readWhole(path), path);
  const index = readIndex(cursor, 0);
  if (cursor.at !== cursor.bytes.byteLength) cursor.fail('trailing bytes after the index');
  return index;
}

function readIndex(c: FaissCursor, depth: number): FaissIndexData {
  if (depth > MAX_DEPTH) c.fail('FAISS indexes nested too deep');
  const fourcc = c.fourcc();
  switch (fourcc) {
    case 'IxFI':
    case 'IxF2':
    case 'IxFl':
      return readFlat(c, readHeader(c));
    case 'IwFl':
      return readIvfFlat(c, readHeader(c), depth);
    case 'IHNf':
      return readHnswFlat(c, readHeader(c), depth);
    case 'IxMp':
    case 'IxM2': {
      const header = readHeader(c);
      const index = readIndex(c, depth + 1);
      const ids = c.int64s();
      if (ids.length !== header.count)
        c.fail(`IndexIDMap has ${ids.length} ids for ${header.count} vectors`);
      return { kind: 'id-map', ...header, ids, index };
    }
    default:
      throw new FormatError(
        c.file,
        `unsupported FAISS index type "${fourcc}" (supported: ${SUPPORTED})`,
      );
  }
}

/** d, ntotal, two unused idx_t, is_trained, metric_type [, metric_arg]. */
function readHeader(c: FaissCursor): Header {
  const dim = c.i32();
  const count = c.i64();
  c.i64();
  c.i64();
  c.u8();
  const metricType = c.i32();
  if (metricType > 1) c.f32();
  if (metricType !== 0 && metricType !== 1) {
    c.fail(`FAISS metric type ${metricType} is not supported (only inner product 0 and L2 1)`);
  }
  if (dim <= 0 || count < 0) c.fail(`bad FAISS index header (d=${dim}, ntotal=${count})`);
  return { dim, count, metric: metricType === 0 ? 'ip' : 'l2' };
}

function readFlat(c: FaissCursor, header: Header): FaissIndexData {
  const vectors = c.floats();
  if (vectors.length !== header.count * header.dim) {
    c.fail(`flat index holds ${vectors.length} floats, expected ${header.count} x ${header.dim}`);
  }
  return { kind: 'flat', ...header, vectors };
}

function readIvfFlat(c: FaissCursor, header: Header, depth: number): FaissIndexData {
  const nlist = c.i64();
  const nprobe = c.i64();
  const quantizer = readIndex(c, depth + 1);
  if (quantizer.kind !== 'flat' || quantizer.count !== nlist || quantizer.dim !== header.dim) {
    c.fail(`IVF quantizer must be a flat index of ${nlist} centroids`);
  }
  skipDirectMap(c);
  const lists = readArrayInvertedLists(c, nlist, header.dim);
  const total = lists.reduce((sum, list) => sum + list.ids.length, 0);
  if (total !== header.count)
    c.fail(`inverted lists hold ${total} vectors, header says ${header.count}`);
  return { kind: 'ivf-flat', ...header, nlist, nprobe, centroids: quantizer.vectors, lists };
}

/** The id -> list map kept for reconstruct(); irserve does not need it. */
function skipDirectMap(c: FaissCursor): void {
  const type = c.u8();
  c.int64s();
  if (type === 2) c.raw(c.count(16), 16); // hashtable: (id, list/offset) pairs
}

function readArrayInvertedLists(c: FaissCursor, nlist: number, dim: number) {
  const type = c.fourcc();
  if (type === 'il00')
    c.fail('IVF index was written without inverted lists ("il00"); nothing to search');
  if (type === 'ilod') {
    c.fail(
      'IVF index uses on-disk inverted lists ("ilod"); merge them into the index (faiss ArrayInvertedLists) first',
    );
  }
  if (type !== 'ilar') c.fail(`unsupported inverted-list type "${type}" (supported: ilar)`);
  if (c.i64() !== nlist) c.fail('inverted lists disagree with the index on nlist');
  if (c.i64() !== dim * 4) c.fail('inverted-list code size is not dim x 4 (not an IVF-Flat)');
  const sizes = readListSizes(c, nlist);
  return sizes.map((n) => {
    const vectors = c.floatsN(n * dim);
    const ids = c.int64sN(n);
    return { ids, vectors };
  });
}

/** List sizes: "full" (one per list) or "sprs" ((list, size) pairs for non-empty lists). */
function readListSizes(c: FaissCursor, nlist: number): number[] {
  const kind = c.fourcc();
  const values = Array.from(c.int64s());
  if (kind === 'full') {
    if (values.length !== nlist) c.fail('inverted-list sizes disagree with nlist');
    return values;
  }
  if (kind !== 'sprs') c.fail(`unknown inverted-list size format "${kind}"`);
  const sizes = new Array<number>(nlist).fill(0);
  for (let i = 0; i + 1 < values.length; i += 2) {
    const list = values[i]!;
    if (list >= nlist) c.fail(`inverted list ${list} out of range`);
    sizes[list] = values[i + 1]!;
  }
  return sizes;
}

function readHnswFlat(c: FaissCursor, header: Header, depth: number): FaissIndexData {
  const graph = readHnswGraph(c);
  const storage = readIndex(c, depth + 1);
  if (storage.kind !== 'flat' || storage.count !== header.count || storage.dim !== header.dim) {
    c.fail('HNSW storage must be a flat index of the same vectors');
  }
  if (graph.levels.length !== header.count) c.fail('HNSW levels disagree with the vector count');
  return { kind: 'hnsw-flat', ...header, vectors: storage.vectors, graph };
}

function readHnswGraph(c: FaissCursor): FaissHnswGraph {
  const assignProbas = c.float64s();
  const cumNeighborsPerLevel = c.int32s();
  const levels = c.int32s();
  const offsets = c.int64s();
  const neighbors = c.int32s();
  const entryPoint = c.i32();
  const maxLevel = c.i32();
  const efConstruction = c.i32();
  const efSearch = c.i32();
  c.i32(); // upper_beam, deprecated but still written
  return {
    assignProbas,
    cumNeighborsPerLevel,
    levels,
    offsets,
    neighbors,
    entryPoint,
    maxLevel,
    efConstruction,
    efSearch,
  };
}

/**
 * Reads RoutIR's `index.ids`: one id per line, in vector order (a final newline is optional;
 * CRLF line ends are accepted).
 *
 * @example const ids = await readIdsFile('index.ids')  // ids[i] names vector i
 */
export async function readIdsFile(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8');
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
