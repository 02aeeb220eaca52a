/**
 * Opens a sparse index directory: the manifest is checked (format, version), every data file
 * against its size, and the arrays against the counts, so a truncated or foreign index is a
 * clear error at once. Every file's CRC-32 is checked too, before `openSparseIndex` returns
 * (`verify: 'open'`) or after, a slice at a time (`'background'`): on a million passages the
 * checksums of 1.5-2.5 GB cost about a second of CPU that the index need not wait for. Arrays
 * are views on the file bytes (no parsing).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { STRING_FILES, arrayFileName, arrayFilesOf, elementBytes } from './files.js';
import { MANIFEST_FILE, parseManifest, type SparseManifest } from './manifest.js';
import { verifyChecksums, type ReadFile } from './verify-checksums.js';
import { hasImpactOrder, type SparseIndexData } from './types.js';

export interface OpenedSparseIndex {
  index: SparseIndexData;
  manifest: SparseManifest;
  /**
   * Settles once every file has been checked against its CRC-32: rejects with an error naming
   * the first file that does not match. Already settled with `verify: 'open'`.
   */
  verified: Promise<void>;
}

export interface OpenSparseOptions {
  /** When the checksums are checked (default `open`: before the index is returned). */
  verify?: 'open' | 'background';
  /** Stops a background check (the index was closed); `verified` then rejects with its reason. */
  signal?: AbortSignal;
}

async function readSized(dir: string, name: string, manifest: SparseManifest): Promise<Buffer> {
  const entry = manifest.files[name];
  if (!entry) throw new Error(`${dir}: ${MANIFEST_FILE} does not list ${name}`);
  const data = await readFile(join(dir, name)).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`${dir}: cannot read ${name} (${error.code ?? error.message})`);
  });
  if (data.byteLength !== entry.bytes)
    throw new Error(
      `${dir}: ${name} has ${data.byteLength} bytes, the manifest says ${entry.bytes} (a damaged or half-copied index: rebuild or copy it again)`,
    );
  return data;
}

function typedView(data: Buffer, bytesPerElement: number, float: boolean) {
  const aligned = data.byteOffset % 4 === 0 ? data : Buffer.from(new Uint8Array(data)); // copy when unaligned
  const length = aligned.byteLength / bytesPerElement;
  if (bytesPerElement === 2) return new Uint16Array(aligned.buffer, aligned.byteOffset, length);
  return float
    ? new Float32Array(aligned.buffer, aligned.byteOffset, length)
    : new Uint32Array(aligned.buffer, aligned.byteOffset, length);
}

function parseStrings(dir: string, name: string, data: Buffer, count: number): string[] {
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch {
    throw new Error(`${dir}: ${name} is not valid JSON`);
  }
  if (!Array.isArray(value) || value.length !== count || !value.every((v) => typeof v === 'string'))
    throw new Error(`${dir}: ${name} is not a list of ${count} strings`);
  return value;
}

/**
 * Opens the index at `dir`; throws an error naming the directory and the fault.
 *
 * @example const { index, manifest } = await openSparseIndex('indexes/splade');
 */
export async function openSparseIndex(
  dir: string,
  options: OpenSparseOptions = {},
): Promise<OpenedSparseIndex> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new Error(`sparse index directory ${dir} does not exist`);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory (expected a sparse index)`);
  const manifestText = await readFile(join(dir, MANIFEST_FILE), 'utf8').catch(() => {
    throw new Error(
      `${dir} is not a sparse index: it has no ${MANIFEST_FILE} (build one with irserve-build-sparse-index)`,
    );
  });
  const manifest = parseManifest(manifestText, dir);
  const files: ReadFile[] = [];
  const read = async (name: string) => {
    const data = await readSized(dir, name, manifest);
    files.push({ name, data, crc32: manifest.files[name]!.crc32 });
    return data;
  };
  const arrays: Record<string, Uint32Array | Uint16Array | Float32Array> = {};
  await Promise.all(
    arrayFilesOf(manifest.impactSlice !== undefined).map(async (file) => {
      const name = arrayFileName(file, manifest.impactType);
      const data = await read(name);
      const bytes = elementBytes(file, manifest.impactType);
      if (data.byteLength % bytes !== 0) throw new Error(`${dir}: ${name} has a partial element`);
      const float = file.kind === 'impacts' && manifest.impactType === 'f32';
      arrays[file.field] = typedView(data, bytes, float);
    }),
  );
  const counts = {
    terms: manifest.vocabularySize,
    passageIds: manifest.passages,
    documentIds: manifest.documents,
  };
  const strings: Record<string, string[]> = {};
  await Promise.all(
    STRING_FILES.map(async (file) => {
      const data = await read(file.name);
      strings[file.field] = parseStrings(dir, file.name, data, counts[file.field]);
    }),
  );
  const index = {
    ...arrays,
    ...strings,
    quantization: manifest.quantization,
    blockSize: manifest.blockSize,
    ...(manifest.impactSlice === undefined ? {} : { impactSlice: manifest.impactSlice }),
  } as unknown as SparseIndexData;
  checkShape(index, manifest, dir);
  const verified = verifyChecksums(dir, files, options.verify === 'background', {
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (options.verify !== 'background') await verified;
  // Whoever opened the index may never ask; a failure is then theirs to miss, not a crash.
  verified.catch(() => undefined);
  return { index, manifest, verified };
}

/** Array lengths against the manifest's counts (a checksum-valid but inconsistent index). */
function checkShape(index: SparseIndexData, m: SparseManifest, dir: string): void {
  const expect = (what: string, actual: number, wanted: number) => {
    if (actual !== wanted)
      throw new Error(`${dir}: ${what} has ${actual} entries, expected ${wanted}`);
  };
  expect('inverted.offsets', index.invertedOffsets.length, m.vocabularySize + 1);
  expect('inverted.passages', index.invertedPassages.length, m.postings);
  expect('inverted.impacts', index.invertedImpacts.length, m.postings);
  if (hasImpactOrder(index)) {
    expect('impact-ordered.passages', index.impactPassages.length, m.postings);
    expect('impact-ordered.impacts', index.impactImpacts.length, m.postings);
  }
  expect('forward.offsets', index.forwardOffsets.length, m.passages + 1);
  expect('forward.terms', index.forwardTerms.length, m.postings);
  expect('forward.impacts', index.forwardImpacts.length, m.postings);
  expect('blocks.offsets', index.blockOffsets.length, m.vocabularySize + 1);
  expect('blocks.max', index.blockMax.length, index.blockIds.length);
  expect('passage-docs', index.passageDocs.length, m.passages);
  expect('last inverted offset', index.invertedOffsets[m.vocabularySize]!, m.postings);
  expect('last forward offset', index.forwardOffsets[m.passages]!, m.postings);
  expect('last block offset', index.blockOffsets[m.vocabularySize]!, index.blockIds.length);
}
