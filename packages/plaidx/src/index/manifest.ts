/**
 * `irserve-manifest.json`: the size and sha256 of every file irserve-build-plaid-index
 * wrote, verified when the index is opened. Indexes written by ColBERT or next-plaid have no
 * manifest; their files are checked for consistent shapes instead.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { combinedChecksum, FormatError, sha256File } from '@irserve/dense';

export const MANIFEST_FILE = 'irserve-manifest.json';
export const MANIFEST_FORMAT = 'irserve-plaid-index';

interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: 1;
  files: Record<string, { bytes: number; sha256: string }>;
  checksum: string;
}

/** Writes the manifest over `names` (files in `dir`). */
export async function writeManifest(dir: string, names: readonly string[]): Promise<string> {
  const files: Manifest['files'] = {};
  for (const name of [...names].sort()) {
    const path = join(dir, name);
    files[name] = { bytes: (await stat(path)).size, sha256: await sha256File(path) };
  }
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: 1,
    files,
    checksum: combinedChecksum(files),
  };
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
  return manifest.checksum;
}

/**
 * Verifies `dir` against its manifest, if it has one; resolves to whether it had one.
 *
 * @example await verifyManifest('indexes/my-plaid') // true, or throws naming the damaged file
 */
export async function verifyManifest(dir: string): Promise<boolean> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return false;
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new FormatError(path, 'not valid JSON');
  }
  if (
    manifest?.format !== MANIFEST_FORMAT ||
    typeof manifest.files !== 'object' ||
    manifest.files === null
  )
    throw new FormatError(path, `not an ${MANIFEST_FORMAT} manifest`);
  for (const [name, entry] of Object.entries(manifest.files)) {
    const file = join(dir, name);
    const size = await stat(file).then(
      (s) => s.size,
      () => -1,
    );
    if (size < 0) throw new FormatError(file, 'listed in the manifest but missing');
    if (size !== entry.bytes)
      throw new FormatError(
        file,
        `${size} bytes, the manifest says ${entry.bytes} (truncated or replaced)`,
      );
    if ((await sha256File(file)) !== entry.sha256)
      throw new FormatError(file, 'sha256 differs from the manifest (the file is damaged)');
  }
  return true;
}
