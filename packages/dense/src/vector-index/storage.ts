import { createHash } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from 'irserve/plugin';
import { writeChunks } from '../formats/io.js';
import { FlatIndex } from './flat.js';
import { HnswIndex } from './hnsw.js';
import { IvfIndex, type IvfData } from './ivf.js';
import { STORAGE_EXTENSION, type RowCodec, type RowStorage } from './row-codec.js';
import { MemoryRows, type RowStore } from './row-store.js';
import { PageChecksummer, pageBytesFor, pageChecksumsFile } from './page-checksums.js';
import { ScanFlatIndex } from './scan-flat.js';
import {
  combinedChecksum,
  IDS_FILE,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  MANIFEST_VERSION,
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
  sq8Ranges: 'sq8-ranges.f32',
} as const;

/** The file of a flat index's rows in `storage` (`vectors.f32`, `vectors.f16`, `vectors.sq8`). */
export function flatVectorsFile(storage: RowStorage): string {
  return `vectors.${STORAGE_EXTENSION[storage]}`;
}

/** The file of an IVF index's rows in `storage` (`list-vectors.f32`, ...). */
export function listVectorsFile(storage: RowStorage): string {
  return `list-vectors.${STORAGE_EXTENSION[storage]}`;
}

export type Files = Record<string, FileEntry>;

/**
 * Writes `chunks` to `dir/name` and records its size and sha256 in `files`; a rows file
 * (`rowBytes` given) also gets its page checksums (page-checksums.ts).
 */
export async function writeDataFile(
  dir: string,
  name: string,
  chunks: readonly ArrayBufferView[],
  files: Files,
  { rowBytes }: { rowBytes?: number } = {},
): Promise<void> {
  const bytes = chunks.map((c) => new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
  const hash = createHash('sha256');
  const pages = rowBytes === undefined ? undefined : new PageChecksummer(pageBytesFor(rowBytes));
  for (const chunk of bytes) {
    hash.update(chunk);
    pages?.update(chunk);
  }
  await writeChunks(join(dir, name), bytes);
  const size = bytes.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  files[name] = { bytes: size, sha256: hash.digest('hex') };
  if (!pages) return;
  files[name].pageBytes = pages.pageBytes;
  await writeDataFile(dir, pageChecksumsFile(name), [pages.finish()], files);
}

/** Writes a rows file (its page checksums too). */
async function writeRows(dir: string, name: string, rows: RowStore, files: Files) {
  await writeDataFile(dir, name, rowChunks(rows), files, { rowBytes: rows.rowBytes });
}

async function writeTyped(dir: string, name: string, data: ArrayBufferView, files: Files) {
  await writeDataFile(dir, name, [data], files);
}

/** The chunks that hold a row store's bytes in order. */
function rowChunks(rows: RowStore): Uint8Array[] {
  if (rows instanceof MemoryRows) return [...rows.segments];
  const chunks: Uint8Array[] = [];
  rows.scan(0, rows.count, (bytes, at, _row, count) =>
    chunks.push(bytes.slice(at, at + count * rows.rowBytes)),
  );
  return chunks;
}

/** The manifest parameter naming a storage (none for float32, as before there was a choice). */
export function storageParams(storage: RowStorage): Record<string, string> {
  return storage === 'f32' ? {} : { storage };
}

/** An IVF's parameters in the manifest. */
export function ivfParams(
  data: Pick<IvfData, 'nlist' | 'nprobe' | 'codec' | 'pq'>,
): Manifest['params'] {
  const base = { nlist: data.nlist, nprobe: data.nprobe };
  if (data.pq) return { ...base, pqM: data.pq.m, pqBits: 8 };
  return { ...base, ...storageParams(data.codec!.storage) };
}

/** Writes a codec's parameters (SQ8's ranges); returns its manifest parameters. */
async function writeCodec(dir: string, codec: RowCodec, files: Files) {
  if (codec.ranges) await writeTyped(dir, FILES.sq8Ranges, codec.ranges, files);
  return storageParams(codec.storage);
}

/** Writes each index type's data files; returns its kind and search parameters. */
async function writeData(
  index: VectorIndex,
  dir: string,
  files: Files,
): Promise<{ kind: Manifest['kind']; params: Manifest['params'] }> {
  if (index instanceof FlatIndex) {
    const rowBytes = index.dim * 4;
    await writeDataFile(dir, FILES.flatVectors, [index.vectors], files, { rowBytes });
    return { kind: 'flat', params: {} };
  }
  if (index instanceof ScanFlatIndex) {
    const { codec, rows } = index;
    await writeRows(dir, flatVectorsFile(codec.storage), rows, files);
    return { kind: 'flat', params: await writeCodec(dir, codec, files) };
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
    const { codec } = data;
    if (codec) {
      await writeRows(dir, listVectorsFile(codec.storage), data.rows, files);
      await writeCodec(dir, codec, files);
      return { kind: 'ivf-flat', params: ivfParams(data) };
    }
    await writeRows(dir, FILES.listCodes, data.rows, files);
    await writeTyped(dir, FILES.pqCodebooks, data.pq!.codebooks, files);
    return { kind: 'ivf-pq', params: ivfParams(data) };
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
  const { factory, metric, dim, count } = index;
  return writeManifest(dir, { factory, kind, metric, dim, count, files, params, build });
}

/** What a manifest says besides its format, checksum and date. */
export type ManifestFields = Omit<Manifest, 'format' | 'version' | 'checksum' | 'createdAt'>;

/**
 * Writes `manifest.json` (files listed in name order, the combined checksum, the date) under a
 * temporary name, then renames it: the last step of writing an index.
 */
export async function writeManifest(dir: string, fields: ManifestFields): Promise<Manifest> {
  const files: Files = {};
  for (const name of Object.keys(fields.files).sort()) files[name] = fields.files[name]!;
  const { factory, kind, metric, dim, count, params, build } = fields;
  const manifest: Manifest = {
    ...{ format: MANIFEST_FORMAT, version: MANIFEST_VERSION, factory, kind, metric, dim, count },
    ...{ files, checksum: combinedChecksum(files), params, build },
    createdAt: new Date().toISOString(),
  };
  await writeFileAtomically(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
