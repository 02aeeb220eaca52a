/**
 * What a set of files is, by content, for cache fingerprints (`Engine.cacheIdentity`): equal on
 * two machines that hold the same files (paths, times and owners do not count), different when
 * a file is replaced. Files up to 8 MiB are hashed whole; a larger one (model weights) by its
 * size, its first and last MiB and 32 slices of 64 KiB spread between, a few MB read however
 * large it is: retrained weights differ throughout, so the slices see it.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';

const WHOLE_BYTES = 8 * 1024 * 1024;
const END_BYTES = 1024 * 1024;
const SLICES = 32;
const SLICE_BYTES = 64 * 1024;

/**
 * A hex SHA-256 over named files and folders (a folder: every file under it, by relative
 * path), relative paths taken from `baseDir`; a name without a path, or a path that does not
 * exist, counts as such.
 *
 * @example
 * const identity = await filesIdentity({ model: 'models/minilm', subsets: undefined }, configDir);
 */
export async function filesIdentity(
  files: Readonly<Record<string, string | undefined>>,
  baseDir = '.',
): Promise<string> {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) {
    hash.update(`${name}\n`);
    const given = files[name];
    const path = given === undefined ? undefined : resolve(baseDir, given);
    const info = path === undefined ? undefined : await stat(path).catch(() => undefined);
    if (path === undefined || info === undefined)
      hash.update(given === undefined ? 'none\n' : 'missing\n');
    else if (info.isDirectory())
      for (const file of await filesUnder(path)) {
        hash.update(`${relative(path, file)}\n`);
        await hashFile(hash, file);
      }
    else await hashFile(hash, path);
  }
  return hash.digest('hex');
}

/** Every file under `dir` (links to files included), sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() || (entry.isSymbolicLink() && (await stat(path)).isFile())) files.push(path);
  }
  return files.sort();
}

async function hashFile(hash: Hash, path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    hash.update(`${size}\n`);
    for (const [at, length] of sampledRanges(size)) {
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await handle.read(bytes, 0, length, at);
      hash.update(bytes.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/** The byte ranges read of a file of `size` bytes: all of it, or the ends and the slices. */
function sampledRanges(size: number): [number, number][] {
  if (size <= WHOLE_BYTES) return [[0, size]];
  const ranges: [number, number][] = [[0, END_BYTES]];
  const span = size - 2 * END_BYTES - SLICE_BYTES;
  for (let i = 0; i < SLICES; i++)
    ranges.push([END_BYTES + Math.floor((span * (i + 0.5)) / SLICES), SLICE_BYTES]);
  ranges.push([size - END_BYTES, END_BYTES]);
  return ranges;
}
