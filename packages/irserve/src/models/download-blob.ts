/**
 * Downloads one file of a repository into `blobs/<etag>` the way a user can trust: into
 * `<etag>.incomplete` first (resumed with a `Range` request after a cut), checked against the
 * hub's hash (the LFS sha256, or the git blob sha1 of a small file) and size, then renamed into
 * place, so a half or wrong file is never used. One process downloads a blob at a time.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, statfs, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { Progress } from '../util/progress.js';
import { takeLock } from './download-lock.js';
import type { HubCache } from './hub-cache.js';
import type { FileMetadata, HubClient } from './hub-client.js';
import { HubError } from './hub-errors.js';

export interface BlobDownload {
  client: HubClient;
  cache: HubCache;
  repo: string;
  commit: string;
  file: string;
  meta: FileMetadata;
  /** A progress display for `total` bytes (a bar on a terminal, log lines otherwise). */
  progress: (total: number) => Progress;
  /** Told once when another process is downloading the same blob. */
  onWait?: (holder: string) => void;
  /** Attempts after a cut connection before giving up (each resumes where the last stopped). */
  attempts?: number;
}

/**
 * Makes sure `blobs/<etag>` holds the file; downloads what is missing.
 *
 * @example
 * await downloadBlob({ client, cache, repo, commit, file: 'tokenizer.json', meta, progress });
 */
export async function downloadBlob(job: BlobDownload): Promise<void> {
  const blob = job.cache.blobPath(job.repo, job.meta.etag);
  const complete = async () => (await stat(blob).catch(() => undefined))?.size === job.meta.size;
  if (await complete()) return;
  await mkdir(dirname(blob), { recursive: true }).catch((error: unknown) => {
    throw cacheNotWritable(job.cache.root, error);
  });
  const incomplete = `${blob}.incomplete`;
  const lock = await takeLock(job.cache.lockPath(job.repo, job.meta.etag), {
    progressFile: incomplete,
    done: complete,
    ...(job.onWait ? { onWait: job.onWait } : {}),
  }).catch((error: unknown) => {
    throw cacheNotWritable(job.cache.root, error);
  });
  if (!lock) return;
  try {
    if (await complete()) return;
    await fetchWithResume(job, incomplete);
    await verify(job, incomplete);
    await rename(incomplete, blob);
  } finally {
    await lock.release();
  }
}

/** Downloads into `incomplete`, resuming after each cut, until it holds `meta.size` bytes. */
async function fetchWithResume(job: BlobDownload, incomplete: string): Promise<void> {
  const { size } = job.meta;
  let have = (await stat(incomplete).catch(() => undefined))?.size ?? 0;
  if (have > size) {
    await truncate(incomplete, 0);
    have = 0;
  }
  await checkDiskSpace(dirname(incomplete), size - have, job);
  const progress = job.progress(size);
  progress.update(have);
  const attempts = job.attempts ?? 5;
  try {
    for (let attempt = 1; have < size; attempt++) {
      try {
        have = await fetchFrom(job, incomplete, have, progress);
      } catch (error) {
        if (!(error instanceof HubError) || !error.transient) throw error;
        have = (await stat(incomplete).catch(() => undefined))?.size ?? 0;
        if (attempt >= attempts)
          throw new HubError(
            'unavailable',
            `the download of ${job.repo} ${job.file} was cut after ${have} of ${size} bytes, ${attempts} times (${error.message}); run the command again: it resumes from ${incomplete}`,
            { cause: error },
          );
      }
    }
  } finally {
    progress.done();
  }
}

/** One GET from byte `from`; returns how many bytes the file holds after it. */
async function fetchFrom(
  job: BlobDownload,
  incomplete: string,
  from: number,
  progress: Progress,
): Promise<number> {
  const answer = await job.client.download(job.meta, from, { ...job, revision: job.commit });
  const resumed = answer.statusCode === 206;
  if (answer.statusCode !== 200 && !resumed) {
    await answer.body.dump();
    throw new HubError('protocol', `${job.meta.url} answered ${answer.statusCode} to a download`);
  }
  const range = answer.headers['content-range'];
  if (resumed && !String(range).startsWith(`bytes ${from}-`)) {
    await answer.body.dump();
    throw new HubError(
      'protocol',
      `${job.meta.url} sent the range ${String(range)}, not from byte ${from}`,
    );
  }
  let written = resumed ? from : 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      progress.update(written);
      if (written > job.meta.size)
        done(new HubError('protocol', `${job.file} is longer than its ${job.meta.size} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(
      answer.body,
      count,
      createWriteStream(incomplete, { flags: resumed ? 'a' : 'w' }),
    );
  } catch (error) {
    if (isDiskFull(error)) throw diskFull(job, incomplete, error);
    if (error instanceof HubError) {
      await rm(incomplete, { force: true });
      throw error;
    }
    throw new HubError('unavailable', (error as Error).message, { cause: error });
  }
  return written;
}

/** The file's size and hash against the hub's; a wrong file is deleted, never kept. */
async function verify(job: BlobDownload, incomplete: string): Promise<void> {
  const { etag, size } = job.meta;
  const actual = (await stat(incomplete)).size;
  const hash = hasherFor(etag, size);
  let problem = actual === size ? undefined : `${actual} bytes instead of ${size}`;
  if (!problem && hash) {
    for await (const chunk of createReadStream(incomplete)) hash.update(chunk as Buffer);
    const digest = hash.digest('hex');
    if (digest !== etag) problem = `its hash is ${digest}, the hub's is ${etag}`;
  }
  if (!problem) return;
  await rm(incomplete, { force: true });
  throw new HubError(
    'protocol',
    `${job.repo}@${job.commit} ${job.file}: the downloaded file is wrong (${problem}); it was deleted. Run the command again; if it repeats, the mirror or proxy at ${new URL(job.meta.url).origin} serves other bytes than the hub`,
  );
}

/**
 * The hash an etag is: sha256 of the bytes (LFS files, 64 hex digits) or git's blob sha1
 * (`blob <size>\0` then the bytes; 40 hex digits). Other etags are not checked.
 */
function hasherFor(etag: string, size: number): Hash | undefined {
  if (/^[0-9a-f]{64}$/.test(etag)) return createHash('sha256');
  if (!/^[0-9a-f]{40}$/.test(etag)) return undefined;
  return createHash('sha1').update(`blob ${size}\0`);
}

async function checkDiskSpace(dir: string, needed: number, job: BlobDownload): Promise<void> {
  const info = await statfs(dir).catch(() => undefined);
  if (!info) return;
  const free = info.bavail * info.bsize;
  if (free < needed)
    throw new HubError(
      'protocol',
      `${job.repo} ${job.file} needs ${formatBytes(needed)} but ${dir} has ${formatBytes(free)} free: free some space, or set HF_HUB_CACHE to a larger disk`,
    );
}

function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

function diskFull(job: BlobDownload, incomplete: string, error: unknown): HubError {
  return new HubError(
    'protocol',
    `the disk of ${dirname(incomplete)} filled up while downloading ${job.repo} ${job.file}: free some space (or set HF_HUB_CACHE to a larger disk) and run again; the download resumes where it stopped`,
    { cause: error },
  );
}

/** The error for a cache folder irserve may not write to. */
export function cacheNotWritable(root: string, error: unknown): HubError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new HubError(
    'protocol',
    `the Hugging Face cache ${root} cannot be written (${code}): set HF_HUB_CACHE (or HF_HOME) to a folder this user may write, or fetch the model as the cache's owner`,
    { cause: error },
  );
}

/** `1.2 GB`, `340 MB`, `12 kB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} kB`;
  return `${bytes} bytes`;
}
