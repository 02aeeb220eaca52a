/**
 * The Hugging Face cache in the layout Python's `huggingface_hub` reads and writes, so both
 * share one copy of every model:
 *
 * ```
 * <cache>/models--org--name/
 *   blobs/<etag>                         the bytes (etag: sha256 for LFS files, git sha1 otherwise)
 *   refs/<revision>                      the commit a branch or tag pointed to (text)
 *   snapshots/<commit>/<path in repo>    relative symlinks into blobs/
 *   trees/<commit>.json                  the repository's file listing at that commit
 * ```
 */
import { randomBytes } from 'node:crypto';
import {
  copyFile,
  mkdir,
  readdir,
  readFile,
  rename,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { writeFileAtomically } from '../util/write-atomically.js';
import { isCommitHash } from './model-reference.js';

/** One file of a repository listing (the fields of `trees/<commit>.json`). */
export interface RepoFileEntry {
  size: number;
  blob_id: string;
  lfs_sha256?: string;
  lfs_size?: number;
  xet_hash?: string;
}

export type RepoListing = ReadonlyMap<string, RepoFileEntry>;

const TREE_FORMAT_VERSION = 1;
const CACHEDIR_TAG =
  'Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by huggingface_hub or irserve.\n# For information about cache directory tags, see https://bford.info/cachedir/\n';

/**
 * One cache folder. Reads never write; writes are atomic (a temporary file renamed into place),
 * so a reader (Python or another irserve) never sees half a file.
 *
 * @example
 * const cache = new HubCache('/home/me/.cache/huggingface/hub');
 * const commit = await cache.readRef('BAAI/bge-small-en-v1.5', 'main');
 */
export class HubCache {
  constructor(readonly root: string) {}

  /** `<cache>/models--org--name`. */
  repoDir(repo: string): string {
    return join(this.root, `models--${repo.split('/').join('--')}`);
  }

  snapshotDir(repo: string, commit: string): string {
    return join(this.repoDir(repo), 'snapshots', commit);
  }

  blobPath(repo: string, etag: string): string {
    return join(this.repoDir(repo), 'blobs', etag);
  }

  /** Where irserve's download lock of a blob lives (beside Python's `.locks/`, not on its files). */
  lockPath(repo: string, etag: string): string {
    return join(
      this.root,
      '.locks',
      `models--${repo.split('/').join('--')}`,
      `${etag}.irserve.lock`,
    );
  }

  /** The commit `refs/<revision>` records, or undefined (a commit hash is its own ref). */
  async readRef(repo: string, revision: string): Promise<string | undefined> {
    if (isCommitHash(revision)) return revision;
    const text = await readFile(join(this.repoDir(repo), 'refs', revision), 'utf8').catch(
      () => undefined,
    );
    const commit = text?.trim();
    return commit && isCommitHash(commit) ? commit : undefined;
  }

  /** Records that `revision` is `commit` (nothing for a commit hash, nor when already so). */
  async writeRef(repo: string, revision: string, commit: string): Promise<void> {
    if (revision === commit || (await this.readRef(repo, revision)) === commit) return;
    await writeAtomically(join(this.repoDir(repo), 'refs', revision), commit);
  }

  /**
   * Every file of the snapshot (paths with `/`), following the links; a link whose blob is
   * gone does not count. Undefined when the snapshot folder does not exist.
   */
  async snapshotFiles(repo: string, commit: string): Promise<Set<string> | undefined> {
    const root = this.snapshotDir(repo, commit);
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) return undefined;
    const files = new Set<string>();
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        const info = await stat(path).catch(() => undefined);
        if (info?.isDirectory()) await walk(path);
        else if (info?.isFile()) files.add(relative(root, path).split('\\').join('/'));
      }
    };
    await walk(root);
    return files;
  }

  /** `trees/<commit>.json`, when a previous download (Python's or irserve's) wrote it. */
  async readTree(repo: string, commit: string): Promise<RepoListing | undefined> {
    const text = await readFile(this.#treePath(repo, commit), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as { format_version?: unknown; files?: unknown };
      if (parsed.format_version !== TREE_FORMAT_VERSION || typeof parsed.files !== 'object')
        return undefined;
      const files = new Map<string, RepoFileEntry>();
      for (const [path, entry] of Object.entries(parsed.files as Record<string, RepoFileEntry>))
        if (typeof entry?.size === 'number' && typeof entry.blob_id === 'string')
          files.set(path, entry);
      return files;
    } catch {
      return undefined; // a corrupt listing is ignored, as Python ignores it
    }
  }

  /** Writes `trees/<commit>.json` in Python's format (sorted paths). */
  async writeTree(repo: string, commit: string, listing: RepoListing): Promise<void> {
    const files: Record<string, RepoFileEntry> = {};
    for (const path of [...listing.keys()].sort()) files[path] = listing.get(path)!;
    const text = JSON.stringify({ format_version: TREE_FORMAT_VERSION, files }, null, 1);
    await writeAtomically(this.#treePath(repo, commit), text);
  }

  /**
   * Points `snapshots/<commit>/<file>` at `blobs/<etag>` with a relative link, as Python does;
   * where links cannot be made (some Windows setups), the blob is copied instead.
   */
  async linkBlob(repo: string, commit: string, file: string, etag: string): Promise<void> {
    const pointer = join(this.snapshotDir(repo, commit), ...file.split('/'));
    const blob = this.blobPath(repo, etag);
    await mkdir(dirname(pointer), { recursive: true });
    const temporary = `${pointer}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await symlink(relative(dirname(pointer), blob), temporary);
    } catch (error) {
      if (
        !['EPERM', 'EACCES', 'ENOTSUP', 'EINVAL'].includes(
          (error as NodeJS.ErrnoException).code ?? '',
        )
      )
        throw error;
      await copyFile(blob, temporary);
    }
    await rename(temporary, pointer);
  }

  /** Writes `CACHEDIR.TAG` (backup tools skip the folder), once. */
  async tag(): Promise<void> {
    const path = join(this.root, 'CACHEDIR.TAG');
    if (await stat(path).catch(() => undefined)) return;
    await mkdir(this.root, { recursive: true });
    await writeFile(path, CACHEDIR_TAG, { flag: 'wx' }).catch(() => undefined);
  }

  #treePath(repo: string, commit: string): string {
    return join(this.repoDir(repo), 'trees', `${commit}.json`);
  }
}

/** Writes `text` to `path` through a temporary file renamed into place, its folder made first. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomically(path, text);
}
