import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FlatIndex } from './flat.js';
import { createUsearchIndex, HnswIndex, type HnswParams } from './hnsw.js';
import { IvfIndex } from './ivf.js';
import { combinedChecksum, IDS_FILE, sha256, sha256File, type Manifest } from './manifest.js';
import { PQ_KSUB } from './pq.js';
import { rowCodec, type RowCodec } from './row-codec.js';
import { pageChecksumsFile, pageCount } from './page-checksums.js';
import { PagedRows, type PageChecks } from './paged-rows.js';
import { MemoryRows, type RowStore } from './row-store.js';
import { ScanFlatIndex } from './scan-flat.js';
import { FILES, flatVectorsFile, listVectorsFile } from './storage.js';
import type { VectorIndex } from './types.js';

/** Float32 Flat indexes up to this size use the shared-memory kernel (read as one array). */
const KERNEL_FLAT_BYTES = 2 ** 31 - 1;

export interface LoadOptions {
  /** Threads for usearch search (0: all cores). */
  threads?: number;
  /** Hash every data file against the manifest (default true; sizes are always checked). */
  verifyChecksums?: boolean;
  /**
   * Bytes of vectors the index may keep in memory: vectors or codes past it are read from
   * their file on demand, through a cache of this size (default: no limit, all in memory).
   */
  memoryBudget?: number;
}

/** Reads and checks one data file: listed, present, of the listed size and hash. */
class DataFiles {
  constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    readonly verify: boolean,
    readonly memoryBudget = Infinity,
  ) {}

  /** Whether rows of `bytes` in all are read on demand rather than held. */
  paged(bytes: number): boolean {
    return bytes > this.memoryBudget;
  }

  async #check(name: string, expectedBytes: number | undefined): Promise<string> {
    const entry = this.manifest.files[name];
    const path = join(this.dir, name);
    if (!entry) throw new Error(`${this.dir}: manifest.json does not list the data file ${name}`);
    const size = await stat(path).then(
      (s) => s.size,
      () => -1,
    );
    if (size < 0) throw new Error(`${this.dir}: data file ${name} is missing`);
    if (size !== entry.bytes || (expectedBytes !== undefined && size !== expectedBytes)) {
      const want = expectedBytes ?? entry.bytes;
      throw new Error(
        `${this.dir}: ${name} has ${size} bytes, expected ${want} (truncated or replaced?)`,
      );
    }
    return path;
  }

  #mismatch(name: string): Error {
    return new Error(
      `${this.dir}: checksum mismatch in ${name} (the file is corrupt or was modified)`,
    );
  }

  async bytes(name: string, expectedBytes?: number): Promise<Uint8Array> {
    const data = await readFile(await this.#check(name, expectedBytes));
    if (this.verify && sha256(data) !== this.manifest.files[name]!.sha256)
      throw this.#mismatch(name);
    // A view needs 4-byte alignment; readFile's buffers have it unless taken from the pool.
    return data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
  }

  async f32(name: string, floats: number): Promise<Float32Array> {
    const b = await this.bytes(name, floats * 4);
    return new Float32Array(b.buffer, b.byteOffset, floats);
  }

  async i32(name: string, ints: number): Promise<Int32Array> {
    const b = await this.bytes(name, ints * 4);
    return new Int32Array(b.buffer, b.byteOffset, ints);
  }

  /**
   * A rows file, read segment by segment (it may be larger than one array can be), or opened
   * for reads on demand when it is larger than the budget: then only its page checksums are
   * read now, each page checked as it is read (an index written before page checksums has
   * its whole file hashed first instead).
   */
  async rows(name: string, count: number, rowBytes: number): Promise<RowStore> {
    const path = await this.#check(name, count * rowBytes);
    if (this.paged(count * rowBytes)) {
      const checks = await this.#pageChecks(name, count * rowBytes, rowBytes);
      if (this.verify && !checks && (await sha256File(path)) !== this.manifest.files[name]!.sha256)
        throw this.#mismatch(name);
      return new PagedRows(path, count, rowBytes, this.memoryBudget, checks);
    }
    const rows = MemoryRows.allocate(count, rowBytes);
    const hash = createHash('sha256');
    const handle = await open(path, 'r');
    try {
      let position = 0;
      for (const segment of rows.segments) {
        for (let at = 0; at < segment.byteLength;) {
          const { bytesRead } = await handle.read(segment, at, segment.byteLength - at, position);
          if (bytesRead === 0) throw new Error(`${this.dir}: ${name} ended early (truncated?)`);
          at += bytesRead;
          position += bytesRead;
        }
        if (this.verify) hash.update(segment);
      }
    } finally {
      await handle.close();
    }
    if (this.verify && hash.digest('hex') !== this.manifest.files[name]!.sha256)
      throw this.#mismatch(name);
    return rows;
  }

  /** The page checksums of rows file `name` (undefined: none listed, or not verifying). */
  async #pageChecks(
    name: string,
    bytes: number,
    rowBytes: number,
  ): Promise<PageChecks | undefined> {
    const pageBytes = this.manifest.files[name]!.pageBytes;
    if (!this.verify || pageBytes === undefined) return undefined;
    if (!Number.isInteger(pageBytes) || pageBytes <= 0 || pageBytes % rowBytes !== 0)
      throw new Error(
        `${this.dir}: manifest.json gives ${name} pages of ${pageBytes} bytes, not whole rows of ${rowBytes}`,
      );
    const pages = pageCount(bytes, pageBytes);
    const table = await this.bytes(pageChecksumsFile(name), pages * 4);
    return { pageBytes, crcs: new Uint32Array(table.buffer, table.byteOffset, pages) };
  }

  async path(name: string): Promise<string> {
    const path = await this.#check(name, undefined);
    if (this.verify && (await sha256File(path)) !== this.manifest.files[name]!.sha256) {
      throw this.#mismatch(name);
    }
    return path;
  }
}

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
  const verify = options.verifyChecksums ?? true;
  const files = new DataFiles(dir, manifest, verify, options.memoryBudget);
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
  return { index, ids };
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
      return new ScanFlatIndex(codec, rows, metric, factory);
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
      const path = await files.path(FILES.hnswGraph);
      const index = createUsearchIndex(params);
      // Past the budget the graph (links and vectors) is mapped: the page cache holds its hot part.
      const mapped = files.paged(m.files[FILES.hnswGraph]!.bytes);
      if (mapped) index.view(path);
      else index.load(path);
      return new HnswIndex(index, params, { threads, path, mapped });
    }
    case 'ivf-flat':
    case 'ivf-pq':
      return new IvfIndex(await loadIvf(files));
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
