/**
 * Opens a sparse index directory in two steps. First the head: the manifest is checked (format,
 * version), every data file against its size, and what a search needs besides the posting
 * lists (the list offsets, the passage-to-document map, the terms and the document ids, a few MB
 * at a million passages) is read and checked against its CRC-32, so a truncated, foreign or
 * damaged head is a clear error at once and nothing read from it is unverified.
 * Then the rest loads a slice at a time (`load`), each page checked against its CRC-32 as it is
 * read, while the caller may already answer from the files (`FilePostings`): on a million
 * passages the lists are 1.5-2.5 GB, seconds of page faults on a VM that the service need not
 * wait for. A service whose memory budget is smaller than the lists never loads them and keeps
 * answering from the files, through a page cache of its budget.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ARRAY_FILES,
  STRING_FILES,
  arrayFileName,
  arrayFilesOf,
  type ArrayFile as ArrayFileSpec,
} from './files.js';
import { FilePostings } from './file-postings.js';
import { idListOf, parseStringArray } from './id-table.js';
import { cannotRead, loadFile, type LoadOptions } from './load-files.js';
import { MANIFEST_FILE, hasArrayFiles, parseManifest, type SparseManifest } from './manifest.js';
import { readArray, type ArrayType } from './read-arrays.js';
import { checkHeadShape, checkShape } from './index-shape.js';
import { verifyChecksums, type ReadFile } from './verify-checksums.js';
import type { SparseIndexData, SparseIndexHead } from './types.js';

export interface OpenedSparseIndex {
  index: SparseIndexData;
  manifest: SparseManifest;
}

export interface OpeningSparseIndex {
  head: SparseIndexHead;
  manifest: SparseManifest;
  /** The inverted lists read from the files (closed by whoever opened). */
  postings: FilePostings;
  /**
   * Starts loading the rest of the index into memory (once; later calls return the same
   * promise): the whole index once every file is in memory and matched its checksums; rejects
   * naming the first file that does not (or with the signal's reason when the load was stopped).
   * A service under a memory budget smaller than the index never calls it.
   */
  load(): Promise<SparseIndexData>;
}

export interface OpenOptions extends LoadOptions {
  /** Bytes of list pages `postings` keeps in memory, given the index's head (default 64 MiB). */
  listCacheBytes?: (manifest: SparseManifest, head: SparseIndexHead) => number;
}

/**
 * Opens the index at `dir` and loads all of it; throws an error naming the directory and the
 * fault.
 *
 * @example const { index, manifest } = await openSparseIndex('indexes/splade');
 */
export async function openSparseIndex(
  dir: string,
  options: OpenOptions = {},
): Promise<OpenedSparseIndex> {
  const opening = await startOpeningSparseIndex(dir, options);
  try {
    return { index: await opening.load(), manifest: opening.manifest };
  } finally {
    await opening.postings.close();
  }
}

/**
 * Reads the head of the index at `dir` and opens its lists; `load` loads the rest.
 *
 * @example const { head, postings, load } = await startOpeningSparseIndex('indexes/splade');
 */
export async function startOpeningSparseIndex(
  dir: string,
  options: OpenOptions = {},
): Promise<OpeningSparseIndex> {
  const manifest = await readManifest(dir);
  await checkSizes(dir, manifest);
  const legacy = !hasArrayFiles(manifest);
  // Files read whole (JSON, and every file of a version 2 or 3 index) are checked against their
  // CRC-32 before anything reads the head; array files are checked page by page as they load.
  const wholeFiles: ReadFile[] = [];
  const read = async (name: string) => {
    const data = await readFile(join(dir, name)).catch(cannotRead(dir, name));
    checkSize(dir, name, data.byteLength, manifest);
    wholeFiles.push({ name, data, crc32: manifest.files[name]!.crc32 });
    return data;
  };
  const array = (name: string, type: ArrayType) =>
    legacy
      ? read(name).then((data) => rawView(data, type))
      : readArray(dir, name, type, manifest, options);
  // The arrays marked `head` in files.ts: u32 offsets and the passage-to-document map.
  const headArrays: Record<string, Uint32Array> = {};
  await Promise.all(
    ARRAY_FILES.filter((file) => file.head).map(async (file) => {
      headArrays[file.field] = (await array(
        arrayFileName(file, manifest.impactType),
        'u32',
      )) as Uint32Array;
    }),
  );
  const terms = parseStringArray(
    await read('terms.json'),
    manifest.vocabularySize,
    `${dir}: terms.json`,
  );
  const documentIds = await readIds(dir, 'documentIds', manifest.documents, manifest, {
    json: read,
    offsets: (name) => array(name, 'u32') as Promise<Uint32Array>,
  });
  const head: SparseIndexHead = {
    quantization: manifest.quantization,
    terms,
    documentIds,
    passageDocs: headArrays.passageDocs!,
    invertedOffsets: headArrays.invertedOffsets!,
    passages: manifest.passages,
    blockSize: manifest.blockSize,
  };
  // Before anything reads the head: a damaged passage-to-document map would give wrong ids.
  await verifyChecksums(dir, wholeFiles, true, options);
  const postings = await FilePostings.open(
    dir,
    manifest,
    head.invertedOffsets,
    options.listCacheBytes?.(manifest, head),
  );
  try {
    checkHeadShape(head, manifest, dir, postings.postings);
  } catch (error) {
    await postings.close();
    throw error;
  }
  let loaded: Promise<SparseIndexData> | undefined;
  const load = () => (loaded ??= loadRest(dir, manifest, { head, arrays: headArrays }, options));
  return { head, manifest, postings, load };
}

async function readManifest(dir: string): Promise<SparseManifest> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new Error(`sparse index directory ${dir} does not exist`);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory (expected a sparse index)`);
  const manifestText = await readFile(join(dir, MANIFEST_FILE), 'utf8').catch(() => {
    throw new Error(
      `${dir} is not a sparse index: it has no ${MANIFEST_FILE} (build one with irserve-build-sparse-index)`,
    );
  });
  return parseManifest(manifestText, dir);
}

/** The names of the files the index must hold, as its manifest describes it. */
function dataFiles(manifest: SparseManifest): string[] {
  const arrays = arrayFilesOf(manifest.impactSlice !== undefined).map((file) =>
    arrayFileName(file, manifest.impactType),
  );
  const offsets = STRING_FILES.flatMap((file) =>
    file.offsets !== undefined && manifest.files[file.offsets] ? [file.offsets] : [],
  );
  return [...arrays, ...STRING_FILES.map((file) => file.name), ...offsets];
}

/** Every data file exists with the size its manifest gives (a half-copied index fails here). */
async function checkSizes(dir: string, manifest: SparseManifest): Promise<void> {
  const names = dataFiles(manifest);
  for (const name of names)
    if (!manifest.files[name]) throw new Error(`${dir}: ${MANIFEST_FILE} does not list ${name}`);
  await Promise.all(
    names.map(async (name) => {
      const info = await stat(join(dir, name)).catch(cannotRead(dir, name));
      checkSize(dir, name, info.size, manifest);
    }),
  );
}

function checkSize(dir: string, name: string, bytes: number, manifest: SparseManifest): void {
  const entry = manifest.files[name];
  if (!entry) throw new Error(`${dir}: ${MANIFEST_FILE} does not list ${name}`);
  if (bytes !== entry.bytes)
    throw new Error(
      `${dir}: ${name} has ${bytes} bytes, the manifest says ${entry.bytes} (a damaged or half-copied index: rebuild or copy it again)`,
    );
}

/** Passage or document ids, with their offsets file when the index has one. */
async function readIds(
  dir: string,
  field: 'passageIds' | 'documentIds',
  count: number,
  manifest: SparseManifest,
  read: {
    json: (name: string) => Promise<Buffer>;
    offsets: (name: string) => Promise<Uint32Array>;
  },
) {
  const file = STRING_FILES.find((f) => f.field === field)!;
  const hasOffsets = file.offsets !== undefined && manifest.files[file.offsets] !== undefined;
  const [json, offsets] = await Promise.all([
    read.json(file.name),
    hasOffsets ? read.offsets(file.offsets!) : undefined,
  ]);
  return idListOf(json, count, offsets, `${dir}: ${file.name}`);
}

/**
 * The posting lists, forward index and block lists, then the passage ids (each checked against
 * its CRC-32 as it loads), joined to the head `read` (and checked) before serving.
 */
async function loadRest(
  dir: string,
  manifest: SparseManifest,
  read: { head: SparseIndexHead; arrays: Record<string, Uint32Array> },
  options: LoadOptions,
): Promise<SparseIndexData> {
  const { head } = read;
  const arrays: Record<string, Uint32Array | Uint16Array | Float32Array> = { ...read.arrays };
  for (const file of arrayFilesOf(manifest.impactSlice !== undefined)) {
    if (file.head) continue;
    const name = arrayFileName(file, manifest.impactType);
    arrays[file.field] = await readArray(dir, name, arrayType(file, manifest), manifest, options);
  }
  const load = async (name: string) => {
    const data = await loadFile(dir, name, manifest.files[name]!, options);
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  };
  const passageIds = await readIds(dir, 'passageIds', manifest.passages, manifest, {
    json: load,
    offsets: (name) => readArray(dir, name, 'u32', manifest, options) as Promise<Uint32Array>,
  });
  const index = {
    ...arrays,
    terms: head.terms,
    passageIds,
    documentIds: head.documentIds,
    quantization: manifest.quantization,
    blockSize: manifest.blockSize,
    ...(manifest.impactSlice === undefined ? {} : { impactSlice: manifest.impactSlice }),
  } as unknown as SparseIndexData;
  checkShape(index, manifest, dir);
  return index;
}

/** A head file of a version 2 or 3 index (raw u32) as an array. */
function rawView(data: Uint8Array, type: ArrayType): Uint32Array {
  if (type !== 'u32') throw new Error('raw head files hold u32 elements');
  const aligned = data.byteOffset % 4 === 0 ? data : new Uint8Array(data); // copy when unaligned
  return new Uint32Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.byteLength / 4));
}

/** The element type of an array file of this index. */
export function arrayType(file: ArrayFileSpec, manifest: SparseManifest): ArrayType {
  return file.kind === 'u32' ? 'u32' : manifest.impactType;
}
