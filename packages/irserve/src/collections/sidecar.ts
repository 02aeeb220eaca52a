/**
 * Where sidecar files (offset maps, tar indexes, decompressed gzip shards) live:
 * `<basename>.<hash16><suffix>` (hash16: first 16 hex chars of the SHA-256 of the source's real
 * path) in the view's cache directory if set, else beside the source, else
 * `<userCacheDir>/<kind>/` when that directory is not writable. Writes are atomic (temp + rename).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, realpath, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Whether new files can be created in a directory (injectable: a test refuses one folder). */
export type IsWritable = (dir: string) => Promise<boolean>;

export interface SidecarOptions {
  /** The view's `cache_dir` (absolute), if configured. */
  cacheDir: string | undefined;
  /** The per-user fallback root, `$XDG_CACHE_HOME/irserve` (or `~/.cache/irserve`). */
  userCacheDir: string;
  isWritable: IsWritable;
}

export interface SidecarPlace {
  /** File name: `<basename>.<hash16><suffix>`. */
  name: string;
  /** Directories to try, in order. */
  dirs: string[];
}

/**
 * The default writability check: creates the directory when missing, then creates and removes an
 * empty, uniquely named file in it. Unlike `access(W_OK)`, which answers for the process's real
 * user from the mode bits, this answers for the user it writes as, on the file system as it is
 * (a read-only mount, an NFS server squashing root, a service started with another effective
 * user). A refusal (EACCES, EPERM, EROFS) or a full file system (ENOSPC, EDQUOT) is a no: the next
 * place is tried; any other failure (a file where the directory should be) is an error naming the
 * directory. Runs before each sidecar write.
 */
export const defaultIsWritable: IsWritable = async (dir) => {
  try {
    await mkdir(dir, { recursive: true });
    await createAndRemoveProbe(dir);
    return true;
  } catch (error) {
    if (cannotWriteHere(error)) return false;
    throw new Error(`cannot keep sidecar files in ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
};

/** Creates and removes the empty file `.irserve-probe.<pid>.<random>` in `dir`. */
async function createAndRemoveProbe(dir: string): Promise<void> {
  const probe = join(dir, `.irserve-probe.${process.pid}.${randomBytes(4).toString('hex')}`);
  const handle = await open(probe, 'wx');
  try {
    await handle.close();
  } finally {
    await rm(probe, { force: true });
  }
}

/** The user cache root: `$XDG_CACHE_HOME/irserve`, else `~/.cache/irserve`. */
export function userCacheRoot(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(home, '.cache'), 'irserve');
}

export function hash16(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * The sidecar name and candidate directories of a source file.
 *
 * @example
 * await sidecarPlace('/data/docs.jsonl', '.offsetmap', 'offsetmap', opts)
 * // { name: 'docs.jsonl.1a2b3c4d5e6f7a8b.offsetmap', dirs: ['/data', '~/.cache/irserve/offsetmap'] }
 */
export async function sidecarPlace(
  source: string,
  suffix: string,
  kind: string,
  options: SidecarOptions,
): Promise<SidecarPlace> {
  const real = await realpath(source);
  const name = `${basename(real)}.${hash16(real)}${suffix}`;
  return { name, dirs: [options.cacheDir ?? dirname(real), join(options.userCacheDir, kind)] };
}

/** Failures that make a folder unusable for sidecars but leave the next place worth trying. */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

function cannotWriteHere(error: unknown): boolean {
  return NOT_WRITABLE.has((error as NodeJS.ErrnoException).code ?? '');
}

/**
 * Writes a sidecar atomically into the first writable candidate directory: a temp file in that
 * directory, filled by `write`, then renamed over the final name. Returns the final path.
 */
export async function writeSidecar(
  place: SidecarPlace,
  isWritable: IsWritable,
  write: (handle: FileHandle, tempPath: string) => Promise<void>,
): Promise<string> {
  const refused: string[] = [];
  for (const dir of place.dirs) {
    if (!(await isWritable(dir))) {
      refused.push(dir);
      continue;
    }
    const finalPath = join(dir, place.name);
    const temp = join(dir, `.${place.name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(temp, 'wx');
      await write(handle, temp);
      await handle.close();
      handle = undefined;
      await rename(temp, finalPath);
      return finalPath;
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
      if (!cannotWriteHere(error)) throw error;
      refused.push(dir);
    }
  }
  throw new Error(
    `cannot write ${place.name}: no writable directory (tried ${refused.join(', ')})`,
  );
}
