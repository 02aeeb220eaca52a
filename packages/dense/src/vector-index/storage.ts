import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FlatIndex } from './flat.js';
import { HnswIndex } from './hnsw.js';
import { IvfIndex } from './ivf.js';
import {
  combinedChecksum,
  IDS_FILE,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  MANIFEST_VERSION,
  sha256,
  sha256File,
  type FileEntry,
  type Manifest,
} from './manifest.js';
import type { VectorIndex } from './types.js';

/** Data file names, shared by the writer and the reader. */
export const FILES = {
  flatVectors: 'vectors.f32',
  hnswGraph: 'graph.usearch',
  centroids: 'centroids.f32',
  offsets: 'offsets.i32',
  listIds: 'list-ids.i32',
  listVectors: 'list-vectors.f32',
  listCodes: 'list-codes.u8',
  pqCodebooks: 'pq-codebooks.f32',
} as const;

type Files = Record<string, FileEntry>;

async function writeTyped(dir: string, name: string, data: ArrayBufferView, files: Files) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  await writeFile(join(dir, name), bytes);
  files[name] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
}

/** Writes each index type's data files; returns its kind and search parameters. */
async function writeData(
  index: VectorIndex,
  dir: string,
  files: Files,
): Promise<{ kind: Manifest['kind']; params: Manifest['params'] }> {
  if (index instanceof FlatIndex) {
    await writeTyped(dir, FILES.flatVectors, index.vectors, files);
    return { kind: 'flat', params: {} };
  }
  if (index instanceof HnswIndex) {
    const path = join(dir, FILES.hnswGraph);
    index.save(path);
    files[FILES.hnswGraph] = { bytes: (await stat(path)).size, sha256: await sha256File(path) };
    const { m, quantization, efConstruction, efSearch, sq8Norm } = index.params;
    return { kind: 'hnsw', params: { m, quantization, efConstruction, efSearch, sq8Norm } };
  }
  if (index instanceof IvfIndex) {
    const { data } = index;
    await writeTyped(dir, FILES.centroids, data.centroids, files);
    await writeTyped(dir, FILES.offsets, data.offsets, files);
    await writeTyped(dir, FILES.listIds, data.ids, files);
    const params = { nlist: data.nlist, nprobe: data.nprobe };
    if (data.vectors) {
      await writeTyped(dir, FILES.listVectors, data.vectors, files);
      return { kind: 'ivf-flat', params };
    }
    await writeTyped(dir, FILES.listCodes, data.codes!, files);
    await writeTyped(dir, FILES.pqCodebooks, data.pq!.codebooks, files);
    return { kind: 'ivf-pq', params: { ...params, pqM: data.pq!.m, pqBits: 8 } };
  }
  throw new TypeError(`cannot save a ${index.constructor.name}: not built by trainAndAdd`);
}

/**
 * Writes `index`, its `ids` (one per line, in vector order) and `manifest.json` to `dir`. The
 * manifest is written last, under a temporary name then renamed, so a directory with a
 * manifest is always complete.
 *
 * @example await saveIndex(trainAndAdd('Flat', vectors, 768, 'ip'), ids, 'out/index');
 */
export async function saveIndex(
  index: VectorIndex,
  ids: readonly string[],
  dir: string,
  build: Record<string, unknown> = {},
): Promise<Manifest> {
  if (ids.length !== index.count) {
    throw new Error(`${ids.length} ids for ${index.count} vectors`);
  }
  const bad = ids.findIndex((id) => /[\r\n]/.test(id));
  if (bad >= 0) throw new Error(`id ${JSON.stringify(ids[bad])} holds a line break`);
  await mkdir(dir, { recursive: true });
  await rm(join(dir, MANIFEST_FILE), { force: true });
  const files: Files = {};
  const idText = new TextEncoder().encode(ids.length ? ids.join('\n') + '\n' : '');
  await writeTyped(dir, IDS_FILE, idText, files);
  const { kind, params } = await writeData(index, dir, files);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    factory: index.factory,
    kind,
    metric: index.metric,
    dim: index.dim,
    count: index.count,
    files,
    checksum: combinedChecksum(files),
    params,
    build,
    createdAt: new Date().toISOString(),
  };
  const tmp = join(dir, `${MANIFEST_FILE}.tmp`);
  await writeFile(tmp, JSON.stringify(manifest, null, 2) + '\n');
  await rename(tmp, join(dir, MANIFEST_FILE));
  return manifest;
}
