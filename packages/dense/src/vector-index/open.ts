import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readFaissIndex, readIdsFile } from '../formats/index.js';
import { fromFaiss } from './faiss-import.js';
import { loadManifestIndex, type LoadOptions } from './load.js';
import { IDS_FILE, MANIFEST_FILE, parseManifest, type Manifest } from './manifest.js';
import type { VectorIndex } from './types.js';

/** The FAISS index file name RoutIR's helper writes beside `index.ids`. */
export const FAISS_FILE = 'index.faiss';

export interface OpenedIndex {
  index: VectorIndex;
  /** The document id of each vector position. */
  ids: string[];
  manifest: Manifest;
  /**
   * How a file served in place (a memory-mapped HNSW graph) was verified at this start:
   * `stamp of <ISO time>` (an earlier start's hash, its file unchanged since) or
   * `hashed at start (<s> s)`; absent when every file was read and hashed, or is paged with
   * page checksums.
   */
  verified?: string;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Opens an index directory: one written by `irserve-build-index` (`manifest.json`, checked
 * against every data file) or a FAISS one (`index.faiss` + `index.ids`, as RoutIR writes).
 *
 * @example const { index, ids } = await openIndex('indexes/msmarco-hnsw');
 *          const { labels } = index.search(queryVectors, 10); // ids[labels[0]] is the best doc
 */
export async function openIndex(dir: string, options: LoadOptions = {}): Promise<OpenedIndex> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new Error(`index directory ${dir} does not exist`);
  if (!info.isDirectory())
    throw new Error(`${dir} is not a directory (expected an index directory)`);
  const manifestPath = join(dir, MANIFEST_FILE);
  if (await exists(manifestPath)) {
    const manifest = parseManifest(await readFile(manifestPath, 'utf8'), dir);
    return { ...(await loadManifestIndex(dir, manifest, options)), manifest };
  }
  if (await exists(join(dir, FAISS_FILE))) return openFaiss(dir, options);
  throw new Error(
    `${dir} is not an index directory: it has neither ${MANIFEST_FILE} (written by ` +
      `irserve-build-index) nor ${FAISS_FILE} + ${IDS_FILE} (FAISS, as RoutIR writes)`,
  );
}

async function openFaiss(dir: string, options: LoadOptions): Promise<OpenedIndex> {
  if (!(await exists(join(dir, IDS_FILE)))) {
    throw new Error(`${dir}: ${FAISS_FILE} has no ${IDS_FILE} beside it (one id per line)`);
  }
  const data = await readFaissIndex(join(dir, FAISS_FILE));
  const ids = await readIdsFile(join(dir, IDS_FILE));
  const index = fromFaiss(data, options.threads ?? 0);
  if (ids.length !== index.count) {
    throw new Error(`${dir}: ${IDS_FILE} has ${ids.length} ids for ${index.count} vectors`);
  }
  const manifest: Manifest = {
    format: 'faiss',
    version: 0,
    factory: index.factory,
    kind: index.factory.includes('IVF') ? 'ivf-flat' : 'flat',
    metric: index.metric,
    dim: index.dim,
    count: index.count,
    files: {},
    checksum: '',
    params: { source: `faiss ${data.kind}` },
    build: {},
    createdAt: '',
  };
  return { index, ids, manifest };
}
