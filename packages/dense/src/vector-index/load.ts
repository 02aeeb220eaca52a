import { stat } from 'node:fs/promises';
import type { Index } from 'usearch';
import { DataFiles, type LoadOptions } from './data-files.js';
import { FlatIndex } from './flat.js';
import { createUsearchIndex, HnswIndex, type HnswParams } from './hnsw.js';
import { IvfIndex } from './ivf.js';
import { combinedChecksum, IDS_FILE, type Manifest } from './manifest.js';
import { PQ_KSUB } from './pq.js';
import { rowCodec, type RowCodec } from './row-codec.js';
import { ScanFlatIndex } from './scan-flat.js';
import { FILES, flatVectorsFile, listVectorsFile } from './storage.js';
import type { VectorIndex } from './types.js';

export type { LoadOptions } from './data-files.js';

/** Float32 Flat indexes up to this size use the shared-memory kernel (read as one array). */
const KERNEL_FLAT_BYTES = 2 ** 31 - 1;

function num(manifest: Manifest, key: string, dir: string): number {
  const value = manifest.params[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`${dir}: manifest.json params.${key} is missing or not a number`);
  }
  return value;
}

/** Loads the index and ids of a directory written by `saveIndex`, checking every file. */
export async function loadManifestIndex(
  dir: string,
  manifest: Manifest,
  options: LoadOptions = {},
) {
  if (combinedChecksum(manifest.files) !== manifest.checksum) {
    throw new Error(`${dir}: manifest.json checksum does not match its file list (edited?)`);
  }
  const files = new DataFiles(dir, manifest, options);
  const idText = new TextDecoder().decode(await files.bytes(IDS_FILE));
  const ids = idText === '' ? [] : idText.replace(/\n$/, '').split('\n');
  if (ids.length !== manifest.count) {
    throw new Error(`${dir}: ${IDS_FILE} has ${ids.length} ids for ${manifest.count} vectors`);
  }
  const index = await loadData(files, options.threads ?? 0);
  if (index.count !== manifest.count) {
    throw new Error(
      `${dir}: the index holds ${index.count} vectors, the manifest says ${manifest.count}`,
    );
  }
  return { index, ids, ...(files.verified === undefined ? {} : { verified: files.verified }) };
}

async function loadData(files: DataFiles, threads: number): Promise<VectorIndex> {
  const { manifest: m, dir } = files;
  const { dim, count, metric, factory } = m;
  switch (m.kind) {
    case 'flat': {
      const codec = await readCodec(files);
      const bytes = count * dim * 4;
      if (codec.storage === 'f32' && bytes <= KERNEL_FLAT_BYTES && !files.paged(bytes))
        return new FlatIndex(await files.f32(FILES.flatVectors, count * dim), dim, metric, {
          threads,
          factory,
        });
      const rows = await files.rows(flatVectorsFile(codec.storage), count, codec.rowBytes);
      return new ScanFlatIndex(codec, rows, metric, factory, { threads });
    }
    case 'hnsw': {
      const quantization = m.params['quantization'];
      if (quantization !== 'f32' && quantization !== 'f16' && quantization !== 'i8') {
        throw new Error(`${dir}: manifest.json params.quantization is not f32, f16 or i8`);
      }
      const p = (key: string) => num(m, key, dir);
      const params: HnswParams = {
        ...{ dim, metric, factory, quantization, m: p('m'), efConstruction: p('efConstruction') },
        ...{ efSearch: p('efSearch'), sq8Norm: p('sq8Norm') },
      };
      const index = createUsearchIndex(params);
      // Past the budget the graph (links and vectors) is mapped: the page cache holds its hot part.
      if (!files.paged(m.files[FILES.hnswGraph]!.bytes)) {
        const path = await files.path(FILES.hnswGraph);
        index.load(path);
        return new HnswIndex(index, params, { threads, path, mapped: false });
      }
      const { path, unchanged } = await files.mappedPath(FILES.hnswGraph);
      await viewGraph(index, path);
      await unchanged();
      return new HnswIndex(index, params, { threads, path, mapped: true });
    }
    case 'ivf-flat':
    case 'ivf-pq':
      return new IvfIndex(await loadIvf(files));
  }
}

/**
 * Maps the graph at `path` into `index`. usearch opens it with O_NOATIME, which Linux grants only
 * to the file's owner (and root): a service reading an index another user owns fails there with
 * a bare "Operation not permitted", turned here into what to do about it.
 */
async function viewGraph(index: Index, path: string) {
  try {
    index.view(path);
  } catch (error) {
    if (!/Operation not permitted/.test((error as Error).message)) throw error;
    const { uid, size } = await stat(path);
    throw new Error(
      `${path}: this process (uid ${process.geteuid?.()}) may not memory-map the HNSW graph: ` +
        `usearch opens it with O_NOATIME, which Linux allows only to the file's owner (uid ${uid}) ` +
        'or root. Serve the index as its owner (or chown it to this user), or give the service a ' +
        `memory_budget above the graph's ${size} bytes to load it into memory instead.`,
    );
  }
}

async function loadIvf(files: DataFiles) {
  const { manifest: m, dir } = files;
  const { dim, count, metric, factory } = m;
  const nlist = num(m, 'nlist', dir);
  const base = {
    ...{ dim, metric, factory, nlist, nprobe: num(m, 'nprobe', dir) },
    centroids: await files.f32(FILES.centroids, nlist * dim),
    offsets: await files.i32(FILES.offsets, nlist + 1),
    ids: await files.i32(FILES.listIds, count),
  };
  if (m.kind === 'ivf-flat') {
    const codec = await readCodec(files);
    const rows = await files.rows(listVectorsFile(codec.storage), count, codec.rowBytes);
    return { ...base, codec, rows };
  }
  const pqM = num(m, 'pqM', dir);
  const dsub = dim / pqM;
  const rows = await files.rows(FILES.listCodes, count, pqM);
  const codebooks = await files.f32(FILES.pqCodebooks, pqM * PQ_KSUB * dsub);
  return { ...base, rows, pq: { m: pqM, dsub, codebooks } };
}

/** The storage of a flat or IVF-Flat index (`params.storage`; float32 when absent), with its codec. */
async function readCodec(files: DataFiles): Promise<RowCodec> {
  const { manifest: m, dir } = files;
  const storage = m.params['storage'] ?? 'f32';
  if (storage !== 'f32' && storage !== 'f16' && storage !== 'sq8')
    throw new Error(`${dir}: manifest.json params.storage is not f32, f16 or sq8`);
  const ranges = storage === 'sq8' ? await files.f32(FILES.sq8Ranges, 2 * m.dim) : undefined;
  return rowCodec(storage, m.dim, ranges);
}
