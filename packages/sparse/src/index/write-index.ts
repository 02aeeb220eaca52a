/**
 * Writes a sparse index directory atomically: every file goes into a temporary sibling
 * directory, the manifest (with the checksums) last, and one rename publishes it. A crash
 * leaves at most a `.partial-*` directory that never loads as an index.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  MANIFEST_VERSION,
  combinedChecksum,
  fileChecksum,
  type FileEntry,
  type SparseManifest,
} from './manifest.js';
import { STRING_FILES, arrayFileName, arrayFilesOf } from './files.js';
import { idArray, idsJson } from './id-table.js';
import { hasImpactOrder, type SparseIndexData } from './types.js';
import type { PassageIdRule } from './passage-docs.js';

export interface WriteIndexOptions {
  passageIds: PassageIdRule;
  /** Informative build details stored in the manifest. */
  build?: Record<string, unknown>;
}

async function writeData(dir: string, name: string, data: Uint8Array): Promise<FileEntry> {
  await writeFile(join(dir, name), data);
  return { bytes: data.byteLength, crc32: fileChecksum(data) };
}

function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** The manifest of `index` with the given file entries. */
export function manifestFor(
  index: SparseIndexData,
  files: Record<string, FileEntry>,
  options: WriteIndexOptions,
): SparseManifest {
  return {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    quantization: index.quantization,
    impactType: index.quantization === 0 ? 'f32' : 'u16',
    vocabularySize: index.terms.length,
    passages: index.passageIds.length,
    documents: index.documentIds.length,
    postings: index.forwardTerms.length,
    blockSize: index.blockSize,
    ...(hasImpactOrder(index) ? { impactSlice: index.impactSlice } : {}),
    passageIds: options.passageIds,
    files,
    checksum: combinedChecksum(files),
    build: options.build ?? {},
    createdAt: new Date().toISOString(),
  };
}

/**
 * Writes `index` to `outputDir` (replacing an earlier sparse index there; refusing any other
 * non-empty directory). Resolves to the manifest written.
 *
 * @example await writeIndex(builder.finish(), 'indexes/splade', { passageIds: 'auto' });
 */
export async function writeIndex(
  index: SparseIndexData,
  outputDir: string,
  options: WriteIndexOptions,
): Promise<SparseManifest> {
  await checkOutput(outputDir);
  await mkdir(dirname(outputDir), { recursive: true });
  const temp = join(
    dirname(outputDir),
    `.${basename(outputDir)}.partial-${randomBytes(4).toString('hex')}`,
  );
  await mkdir(temp);
  try {
    const impactType = index.quantization === 0 ? 'f32' : 'u16';
    const files: Record<string, FileEntry> = {};
    for (const file of arrayFilesOf(hasImpactOrder(index))) {
      const name = arrayFileName(file, impactType);
      files[name] = await writeData(temp, name, bytesOf(index[file.field]!));
    }
    for (const file of STRING_FILES) {
      const { json, offsets } = idsJson(idArray(index[file.field]));
      files[file.name] = await writeData(temp, file.name, json);
      // Offsets are 32-bit: an id file past 4 GiB (about 150 million ids) is scanned at open.
      if (file.offsets !== undefined && json.byteLength < 2 ** 32)
        files[file.offsets] = await writeData(temp, file.offsets, bytesOf(offsets));
    }
    const manifest = manifestFor(index, files, options);
    await writeFile(join(temp, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    await publish(temp, outputDir);
    return manifest;
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/**
 * An existing output must be empty or an earlier sparse index (which is replaced).
 *
 * @example await checkOutput('indexes/splade'); // throws for a non-empty foreign directory
 */
export async function checkOutput(outputDir: string): Promise<void> {
  const info = await stat(outputDir).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory()) throw new Error(`output ${outputDir} exists and is not a directory`);
  const entries = await readdir(outputDir);
  if (entries.length > 0 && !entries.includes(MANIFEST_FILE))
    throw new Error(
      `output directory ${outputDir} is not empty and holds no sparse index; choose another one`,
    );
}

/** Moves the finished directory into place; an index already there is swapped out, then removed. */
async function publish(temp: string, outputDir: string): Promise<void> {
  const old = `${temp}.old`;
  const existed = await stat(outputDir).then(
    () => true,
    () => false,
  );
  if (existed) await rename(outputDir, old);
  await rename(temp, outputDir);
  if (existed) await rm(old, { recursive: true, force: true });
}
