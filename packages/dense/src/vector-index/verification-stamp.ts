/**
 * Verify once, then remember: a data file that cannot be checked as it is read (an HNSW graph
 * that usearch memory-maps and reads in native code) is hashed in full at its first start, and
 * a stamp beside it (`<file>.verified.json`) records the manifest checksum and file hash it
 * matched and the file's identity (`stat`: device, inode, size, modification and change times
 * in nanoseconds). A later start whose `stat` matches the stamp exactly skips the hash: any
 * write, rename, truncation or chmod changes the change time (ctime), which users cannot set
 * back (`utimes` sets only the access and modification times). Anything else hashes again.
 */
import { readFile, stat } from 'node:fs/promises';
import { writeFileAtomically } from 'irserve/plugin';
import { sha256File } from './manifest.js';

/** The stamp of data file `path`. */
export function stampFile(path: string): string {
  return `${path}.verified.json`;
}

/**
 * A file changed within this long before it is hashed may still change within the same tick
 * of the filesystem's clock (1-10 ms on ext4 and XFS; 2 s on FAT) without its ctime moving:
 * such a file is hashed but not stamped, as git treats "racily clean" files.
 */
const RACY_NS = 2_000_000_000n;

/** What identifies one version of a file: equal identities mean no write happened between. */
interface FileIdentity {
  dev: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
}

interface Stamp {
  file: string;
  manifestChecksum: string;
  sha256: string;
  identity: FileIdentity;
  verifiedAt: string;
  hashSeconds: number;
}

export async function fileIdentity(path: string): Promise<FileIdentity> {
  const s = await stat(path, { bigint: true });
  const [dev, ino, size] = [s.dev, s.ino, s.size].map(String) as [string, string, string];
  return { dev, ino, size, mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs) };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return (Object.keys(a) as (keyof FileIdentity)[]).every((key) => a[key] === b[key]);
}

/** The file's expected content: its name in messages, its manifest sha256 and the manifest's. */
export interface Expected {
  name: string;
  sha256: string;
  manifestChecksum: string;
  /** The error a file whose hash differs fails the start with. */
  mismatch: () => Error;
  /** Told once why a start hashes in full (the stamp could not be written). */
  warn?: (message: string) => void;
}

export interface Verified {
  /** The identity of the version verified: whoever opens the file again checks it is still it. */
  identity: FileIdentity;
  /** For `/health` and the log: `stamp of <ISO time>` or `hashed at start (<s> s)`. */
  how: string;
}

/**
 * Checks the file at `path` against `expected`: by its stamp when the stamp matches it exactly,
 * else by hashing it in full (then stamping it, when its folder is writable).
 *
 * @example const { how } = await verifyWithStamp(graphPath, { name: 'hnsw.usearch', ... });
 */
export async function verifyWithStamp(path: string, expected: Expected): Promise<Verified> {
  const identity = await fileIdentity(path);
  const stamp = await readStamp(path);
  if (stamp && matches(stamp, expected, identity))
    return { identity, how: `stamp of ${stamp.verifiedAt}` };
  const started = Date.now();
  const racy = BigInt(started) * 1_000_000n - BigInt(identity.ctimeNs) < RACY_NS;
  if ((await sha256File(path)) !== expected.sha256) throw expected.mismatch();
  if (!sameIdentity(identity, await fileIdentity(path)))
    throw new Error(`${path} changed while it was being verified (is something writing it?)`);
  const hashSeconds = Math.round((Date.now() - started) / 100) / 10;
  if (!racy) {
    const verifiedAt = new Date(started).toISOString();
    const { name: file, sha256, manifestChecksum } = expected;
    const fresh: Stamp = { file, manifestChecksum, sha256, identity, verifiedAt, hashSeconds };
    await writeStamp(path, fresh).catch((error: NodeJS.ErrnoException) =>
      expected.warn?.(unstampedWarning(path, identity, hashSeconds, error)),
    );
  }
  return { identity, how: `hashed at start (${hashSeconds.toFixed(1)} s)` };
}

function matches(stamp: Stamp, expected: Expected, identity: FileIdentity): boolean {
  return (
    stamp.file === expected.name &&
    stamp.sha256 === expected.sha256 &&
    stamp.manifestChecksum === expected.manifestChecksum &&
    sameIdentity(stamp.identity, identity)
  );
}

/** The stamp beside `path`; undefined when there is none or it is damaged (it is rewritten). */
async function readStamp(path: string): Promise<Stamp | undefined> {
  try {
    const value = JSON.parse(await readFile(stampFile(path), 'utf8')) as Partial<Stamp> | null;
    const strings = [value?.file, value?.sha256, value?.manifestChecksum, value?.verifiedAt];
    const identity = value?.identity as Record<string, unknown> | undefined;
    const fields = ['dev', 'ino', 'size', 'mtimeNs', 'ctimeNs'];
    if (strings.some((s) => typeof s !== 'string')) return undefined;
    if (typeof identity !== 'object' || identity === null) return undefined;
    if (fields.some((key) => typeof identity[key] !== 'string')) return undefined;
    return value as Stamp;
  } catch {
    return undefined;
  }
}

/** Writes the stamp atomically: a temporary file beside it, renamed over it. */
async function writeStamp(path: string, stamp: Stamp): Promise<void> {
  await writeFileAtomically(stampFile(path), `${JSON.stringify(stamp, null, 2)}\n`);
}

function unstampedWarning(
  path: string,
  identity: FileIdentity,
  seconds: number,
  error: NodeJS.ErrnoException,
): string {
  const gb = (Number(identity.size) / 1e9).toFixed(1);
  const why =
    error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS'
      ? 'its folder is not writable'
      : `writing it failed (${error.message})`;
  return (
    `${path}: no verification stamp could be written beside it (${why} by this process), so ` +
    `every start hashes all ${gb} GB of it (${seconds.toFixed(1)} s this time). Let the service write ` +
    `${stampFile(path)} once (make the index folder writable for one start, or serve a ` +
    'writable copy): later starts then check the stamp instead of reading the whole file.'
  );
}
