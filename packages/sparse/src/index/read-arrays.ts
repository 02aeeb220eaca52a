/**
 * Reads the array files of an index, whatever its version: irserve array files (version 4; every
 * page checked against its CRC-32 as it is read) or raw little-endian arrays with a CRC-32 per
 * file (versions 2 and 3).
 */
import { join } from 'node:path';
import { ArrayFile, ArrayFileError } from 'irserve/plugin';
import { cannotRead, loadFile, type LoadOptions } from './load-files.js';
import { hasArrayFiles, type FileEntry, type ImpactType, type SparseManifest } from './manifest.js';
import type { Impacts } from './types.js';
import { ARRAY_KIND } from './index-writer.js';

/** The element type of an array file's data. */
export type ArrayType = 'u32' | ImpactType;

/**
 * Opens the array file `dir/name`, checking that it is the one its manifest entry names (the
 * CRC-32 of its footer); errors name the directory and the file.
 *
 * @example const file = await openArrayFile('indexes/splade', 'forward.terms.u32', entry);
 */
export async function openArrayFile(
  dir: string,
  name: string,
  entry: FileEntry,
): Promise<ArrayFile> {
  const file = await ArrayFile.open(join(dir, name), { kind: ARRAY_KIND }).catch(
    (error: unknown) => {
      if (error instanceof ArrayFileError)
        throw new Error(
          `${dir}: ${name} is not a sound index file (${error.message}); rebuild or copy the index again`,
        );
      return cannotRead(dir, name)(error as NodeJS.ErrnoException);
    },
  );
  if (file.footerCrc !== entry.crc32) {
    await file.close();
    throw new Error(
      `${dir}: ${name} does not match its checksum in the manifest (a damaged index or files of two builds: rebuild or copy it again)`,
    );
  }
  return file;
}

/** The data of one array file, checked (pages, or the whole file for versions 2 and 3). */
export async function readArray(
  dir: string,
  name: string,
  type: ArrayType,
  manifest: SparseManifest,
  options: LoadOptions = {},
): Promise<Uint32Array | Impacts> {
  const entry = manifest.files[name]!;
  if (!hasArrayFiles(manifest)) return loadRawArray(dir, name, entry, type, options);
  const file = await openArrayFile(dir, name, entry);
  try {
    const section = file.footer.sections[0];
    if (section === undefined || section.type !== type)
      throw new Error(`${dir}: ${name} does not hold ${type} elements`);
    return await file.read<ArrayType>(section.name, type, options);
  } catch (error) {
    if (error instanceof ArrayFileError)
      throw new Error(
        `${dir}: ${name} is damaged (${error.message}): rebuild or copy the index again`,
      );
    throw error;
  } finally {
    await file.close();
  }
}

/**
 * A raw little-endian array file (versions 2 and 3) read into a typed array of its elements, a
 * slice at a time, checked against its CRC-32 (files past 4 GiB included).
 *
 * @example await loadRawArray(dir, 'forward.terms.u32', manifest.files['forward.terms.u32'], 'u32')
 */
export async function loadRawArray(
  dir: string,
  name: string,
  entry: FileEntry,
  type: ArrayType,
  options: LoadOptions = {},
): Promise<Uint32Array | Impacts> {
  const bytes = type === 'u16' ? 2 : 4;
  if (entry.bytes % bytes !== 0) throw new Error(`${dir}: ${name} has a partial element`);
  const make = type === 'u16' ? Uint16Array : type === 'f32' ? Float32Array : Uint32Array;
  return loadFile(dir, name, entry, options, (size) => new make(size / bytes));
}
