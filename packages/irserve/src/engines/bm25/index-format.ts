/**
 * The index file: an array file (storage/array-file-format.ts) of kind `bm25-index`, its
 * sections the arrays of index-data.ts (the heads, then the posting lists), its meta the format
 * version, the key of what it was built from, and the counts. Every page is checksummed, so a
 * damaged file is refused with ERR_CONFIG naming it, whether it is read into memory at start or
 * paged in while serving; a file of another format, version or key is rebuilt.
 */
import {
  ArrayFile,
  ArrayFileError,
  ArrayFileWriter,
  type ElementType,
  type PageCache,
  type PagedArray,
} from '../../storage/index.js';
import { IrserveError } from '../../errors.js';
import {
  HEAD_NAMES,
  POSTING_NAMES,
  type IndexData,
  type IndexHeads,
  type IndexStats,
  type ResidentPostings,
} from './index-data.js';

const KIND = 'bm25-index';
/** Bump when the layout or the analysis code changes in a way that alters terms. */
export const FORMAT_VERSION = 3;

const TYPES = {
  termBytes: 'u8',
  termOffsets: 'u32',
  postingStart: 'u32',
  norms: 'u8',
  idBytes: 'u8',
  idOffsets: 'u32',
  postingDocs: 'i32',
  postingTfs: 'u16',
} as const satisfies Record<
  (typeof HEAD_NAMES)[number] | (typeof POSTING_NAMES)[number],
  ElementType
>;

interface Meta {
  version: number;
  key: string;
  stats: IndexStats;
}

/**
 * Writes `index` to `path` (under a temporary name, renamed when whole). `key` identifies its
 * inputs.
 *
 * @example
 * await writeIndexFile(join(dir, 'index.bm25'), data, await indexKey(source));
 */
export async function writeIndexFile(path: string, index: IndexData, key: string): Promise<void> {
  const writer = await ArrayFileWriter.create(path, { kind: KIND });
  try {
    for (const name of [...HEAD_NAMES, ...POSTING_NAMES])
      await writer.writeSection(name, index[name]);
    const meta: Meta = { version: FORMAT_VERSION, key, stats: index.stats };
    await writer.finish(meta);
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** An open index file and its heads (in memory, checked); the posting lists are read later. */
export interface IndexFile {
  file: ArrayFile;
  heads: IndexHeads;
}

/** The posting lists read on demand, through a page cache. */
export interface PagedPostings {
  docs: PagedArray<'i32'>;
  tfs: PagedArray<'u16'>;
  /** The cache their pages are read through. */
  cache: PageCache;
}

/** The error for a damaged index file (ERR_CONFIG: the service cannot start on it). */
export function damagedIndex(path: string, cause: unknown): IrserveError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new IrserveError(
    'ERR_CONFIG',
    `bm25 index ${path} is damaged (${why}): delete the file and restart to rebuild it`,
    { cause },
  );
}

/**
 * Opens the index file at `path` when it exists and was built for `key`, reading its heads;
 * otherwise undefined (the caller rebuilds). A current file that is damaged throws ERR_CONFIG
 * naming it.
 *
 * @example
 * const opened = await openIndexFile(path, key); // undefined: build it
 */
export async function openIndexFile(path: string, key: string): Promise<IndexFile | undefined> {
  let file: ArrayFile;
  try {
    file = await ArrayFile.open(path, { kind: KIND });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof ArrayFileError && error.fault === 'foreign') return undefined;
    throw damagedIndex(path, error);
  }
  try {
    const meta = file.meta as Partial<Meta> | null;
    if (meta?.version !== FORMAT_VERSION || meta.key !== key || meta.stats === undefined) {
      await file.close();
      return undefined;
    }
    return { file, heads: await readHeads(file, meta.stats) };
  } catch (error) {
    await file.close();
    throw error instanceof IrserveError ? error : damagedIndex(path, error);
  }
}

async function readHeads(file: ArrayFile, stats: IndexStats): Promise<IndexHeads> {
  const heads: IndexHeads = {
    termBytes: await file.read('termBytes', TYPES.termBytes),
    termOffsets: await file.read('termOffsets', TYPES.termOffsets),
    postingStart: await file.read('postingStart', TYPES.postingStart),
    norms: await file.read('norms', TYPES.norms),
    idBytes: await file.read('idBytes', TYPES.idBytes),
    idOffsets: await file.read('idOffsets', TYPES.idOffsets),
    stats,
    digest: file.identity,
  };
  checkShape(file, heads);
  return heads;
}

/** The arrays' lengths against the counts: what catches sections that do not belong together. */
function checkShape(file: ArrayFile, heads: IndexHeads): void {
  const { numTerms, numDocs, numPostings } = heads.stats;
  const expect = (what: string, actual: number | undefined, wanted: number) => {
    if (actual !== wanted)
      throw damagedIndex(file.path, `${what} is ${actual}, the counts say ${wanted}`);
  };
  expect('termOffsets', heads.termOffsets.length, numTerms + 1);
  expect('postingStart', heads.postingStart.length, numTerms + 1);
  expect('the last posting start', heads.postingStart[numTerms], numPostings);
  expect('norms', heads.norms.length, numDocs);
  expect('idOffsets', heads.idOffsets.length, numDocs + 1);
  expect('postingDocs', file.section('postingDocs', 'i32').length, numPostings);
  expect('postingTfs', file.section('postingTfs', 'u16').length, numPostings);
}

/** Reads the posting lists into memory (checked page by page). */
export async function readPostings(
  { file }: IndexFile,
  signal?: AbortSignal,
): Promise<ResidentPostings> {
  try {
    return {
      postingDocs: await file.read('postingDocs', TYPES.postingDocs, signal ? { signal } : {}),
      postingTfs: await file.read('postingTfs', TYPES.postingTfs, signal ? { signal } : {}),
    };
  } catch (error) {
    if (error instanceof ArrayFileError) throw damagedIndex(file.path, error);
    throw error;
  }
}

/** The posting lists paged through `cache` (each page checked when it is read). */
export function pagedPostings({ file }: IndexFile, cache: PageCache): PagedPostings {
  return {
    docs: file.paged('postingDocs', 'i32', cache),
    tfs: file.paged('postingTfs', 'u16', cache),
    cache,
  };
}
