/**
 * The member index of one tar shard, kept as the `.taridx` sidecar (JSON: the tar's size and
 * mtime, the SHA-256 of the rows, then `[name, offset, size]` rows sorted by name). A stale,
 * damaged or out-of-range index is rebuilt, never served. Member lookups binary-search a name
 * prefix, then test the matcher on that range only.
 */
import { createHash } from 'node:crypto';
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReaderContext } from '../context.js';
import { readExactly } from '../readers/read-line.js';
import { sidecarPlace, writeSidecar } from '../sidecar.js';
import { listTarMembers, type TarMember } from './tar-parse.js';

/** Version 2 added the checksum; version 1 files are rebuilt. */
const VERSION = 2;

interface Stamp {
  size: number;
  mtimeMs: number;
}

export class TarShard {
  readonly path: string;
  readonly #names: string[];
  readonly #members: TarMember[];
  readonly #handle: FileHandle;

  private constructor(path: string, members: TarMember[], handle: FileHandle) {
    this.path = path;
    this.#members = members;
    this.#names = members.map((m) => m.name);
    this.#handle = handle;
  }

  /** Loads the shard's index sidecar, or builds and stores it when missing or stale. */
  static async open(
    path: string,
    cacheDir: string | undefined,
    context: ReaderContext,
  ): Promise<TarShard> {
    const info = await stat(path);
    const stamp: Stamp = { size: info.size, mtimeMs: info.mtimeMs };
    const place = await sidecarPlace(path, '.taridx', 'taridx', {
      cacheDir,
      userCacheDir: context.userCacheDir,
      isWritable: context.isWritable,
    });
    const handle = await open(path, 'r');
    try {
      let members: TarMember[] | undefined;
      for (const dir of place.dirs) members ??= await loadIndex(join(dir, place.name), stamp);
      if (members === undefined) {
        members = sortMembers(await listTarMembers(handle, path));
        const list = members.map((m) => [m.name, m.offset, m.size]);
        const rows = JSON.stringify({
          version: VERSION,
          ...stamp,
          sha256: rowsDigest(list),
          members: list,
        });
        const written = await writeSidecar(
          place,
          context.isWritable,
          async (out) => void (await out.write(rows)),
        );
        context.logger.info(
          { tar: path, sidecar: written, members: members.length },
          'tar index built',
        );
      }
      return new TarShard(path, members, handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  get size(): number {
    return this.#members.length;
  }

  /** Members whose name starts with `prefix` and matches `test`, sorted by name. */
  find(prefix: string, test: (name: string) => boolean): TarMember[] {
    let lo = 0;
    let hi = this.#names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#names[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: TarMember[] = [];
    for (let i = lo; i < this.#names.length && this.#names[i]!.startsWith(prefix); i++) {
      if (test(this.#names[i]!)) out.push(this.#members[i]!);
    }
    return out;
  }

  async read(member: TarMember): Promise<Uint8Array> {
    return new Uint8Array(await readExactly(this.#handle, member.offset, member.size));
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }
}

/** Sorted by name; a later member with the same name replaces the earlier (tar semantics). */
function sortMembers(members: TarMember[]): TarMember[] {
  const byName = new Map<string, TarMember>();
  for (const member of members) byName.set(member.name, member);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function rowsDigest(rows: unknown): string {
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}

/** Whether a row names a member lying inside a tar of `tarSize` bytes. */
function validRow(row: unknown, tarSize: number): row is [string, number, number] {
  if (!Array.isArray(row) || typeof row[0] !== 'string') return false;
  const [, offset, size] = row as unknown[];
  return (
    Number.isSafeInteger(offset) &&
    Number.isSafeInteger(size) &&
    (offset as number) >= 0 &&
    (size as number) >= 0 &&
    (offset as number) + (size as number) <= tarSize
  );
}

async function loadIndex(path: string, stamp: Stamp): Promise<TarMember[] | undefined> {
  try {
    const data = JSON.parse(await readFile(path, 'utf8')) as {
      version: number;
      size: number;
      mtimeMs: number;
      sha256: string;
      members: unknown[];
    };
    if (data.version !== VERSION || data.size !== stamp.size || data.mtimeMs !== stamp.mtimeMs)
      return undefined;
    if (!Array.isArray(data.members) || rowsDigest(data.members) !== data.sha256) return undefined;
    if (!data.members.every((row) => validRow(row, stamp.size))) return undefined;
    return data.members.map(([name, offset, size]) => ({
      name,
      offset,
      size,
    }));
  } catch {
    return undefined;
  }
}
