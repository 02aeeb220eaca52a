import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FlatIndex } from './flat.js';
import { createUsearchIndex, HnswIndex, type HnswParams } from './hnsw.js';
import { IvfIndex } from './ivf.js';
import { combinedChecksum, IDS_FILE, sha256, sha256File, type Manifest } from './manifest.js';
import { PQ_KSUB } from './pq.js';
import { FILES } from './storage.js';
import type { VectorIndex } from './types.js';

export interface LoadOptions {
  /** Threads for usearch search (0: all cores). */
  threads?: number;
  /** Hash every data file against the manifest (default true; sizes are always checked). */
  verifyChecksums?: boolean;
}

/** Reads and checks one data file: listed, present, of the listed size and hash. */
class DataFiles {
  constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    readonly verify: boolean,
  ) {}

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
  const files = new DataFiles(dir, manifest, options.verifyChecksums ?? true);
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
    case 'flat':
      return new FlatIndex(await files.f32(FILES.flatVectors, count * dim), dim, metric, {
        threads,
        factory,
      });
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
      index.load(path);
      return new HnswIndex(index, params, { threads, path });
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
  if (m.kind === 'ivf-flat')
    return { ...base, vectors: await files.f32(FILES.listVectors, count * dim) };
  const pqM = num(m, 'pqM', dir);
  const dsub = dim / pqM;
  const codes = await files.bytes(FILES.listCodes, count * pqM);
  const codebooks = await files.f32(FILES.pqCodebooks, pqM * PQ_KSUB * dsub);
  return { ...base, codes, pq: { m: pqM, dsub, codebooks } };
}
