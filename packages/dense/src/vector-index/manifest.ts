import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Metric } from './types.js';

export const MANIFEST_FILE = 'manifest.json';
export const IDS_FILE = 'index.ids';
export const MANIFEST_FORMAT = 'irserve-dense-index';
export const MANIFEST_VERSION = 1;

/**
 * Size and sha256 of one data file of an index directory; a rows file also gives the size of
 * the pages whose CRC-32s its `<name>.crc32` file lists (page-checksums.ts; absent in indexes
 * written before page checksums, which page only after hashing the whole file).
 */
export interface FileEntry {
  bytes: number;
  sha256: string;
  pageBytes?: number;
}

/**
 * `manifest.json` of an index directory. `checksum` is the sha256 of the lines
 * `<file> <sha256>\n` of every data file in name order, so one value covers the whole index.
 */
export interface Manifest {
  format: typeof MANIFEST_FORMAT | 'faiss';
  version: number;
  factory: string;
  kind: 'flat' | 'hnsw' | 'ivf-flat' | 'ivf-pq';
  metric: Metric;
  dim: number;
  count: number;
  files: Record<string, FileEntry>;
  checksum: string;
  /** Type-specific parameters needed to load and search (efSearch, nlist, nprobe, ...). */
  params: Record<string, number | string>;
  /** How it was built (sampling rate, seed, threads, timings); informative only. */
  build: Record<string, unknown>;
  createdAt: string;
}

/** The sha256 that covers all data files (see `Manifest.checksum`). */
export function combinedChecksum(files: Record<string, FileEntry>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(`${name} ${files[name]!.sha256}\n`);
  return hash.digest('hex');
}

/** sha256 of a file, streamed (an HNSW graph can be larger than one Buffer). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Checks the manifest's shape; every problem is an error naming the directory. */
export function parseManifest(text: string, dir: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${dir}: ${MANIFEST_FILE} is not valid JSON (${(error as Error).message})`);
  }
  const m = value as Partial<Manifest> | null;
  const fail = (why: string): never => {
    throw new Error(`${dir}: ${MANIFEST_FILE} is not an irserve dense index manifest: ${why}`);
  };
  if (typeof m !== 'object' || m === null) return fail('not an object');
  if (m.format !== MANIFEST_FORMAT) return fail(`format is ${JSON.stringify(m.format)}`);
  if (m.version !== MANIFEST_VERSION) {
    return fail(`version ${m.version} (this build reads version ${MANIFEST_VERSION})`);
  }
  if (!Number.isInteger(m.dim) || m.dim! < 1) return fail('dim is not a positive integer');
  if (!Number.isInteger(m.count) || m.count! < 0) return fail('count is not an integer');
  if (m.metric !== 'ip' && m.metric !== 'l2') return fail(`metric ${String(m.metric)}`);
  if (typeof m.factory !== 'string') return fail('factory is missing');
  if (typeof m.files !== 'object' || m.files === null) return fail('files is missing');
  if (typeof m.params !== 'object' || m.params === null) return fail('params is missing');
  if (typeof m.checksum !== 'string') return fail('checksum is missing');
  return m as Manifest;
}
