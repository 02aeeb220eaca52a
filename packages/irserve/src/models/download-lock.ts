/**
 * One downloader per blob across processes (two replicas starting on one cache): a lock file
 * created exclusively, holding `pid@host`. A lock whose process is gone (same host), or whose
 * download has not moved for `staleMs` (another host), is taken over.
 */
import { hostname } from 'node:os';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HeldLock {
  release(): Promise<void>;
}

export interface LockOptions {
  /** The file whose growth shows the holder is alive (the `.incomplete` download). */
  progressFile: string;
  /** Resolves true when the work is done by someone else (the blob exists): stop waiting. */
  done: () => Promise<boolean>;
  /** Called once when another process holds the lock. */
  onWait?: (holder: string) => void;
  staleMs?: number;
  pollMs?: number;
}

/**
 * Takes the lock at `path`, waiting while a live holder has it; undefined when `done()` became
 * true meanwhile (nothing left to do).
 *
 * @example
 * const lock = await takeLock(lockPath, { progressFile: `${blob}.incomplete`, done: () => exists(blob) });
 * if (lock) try { await download(); } finally { await lock.release(); }
 */
export async function takeLock(path: string, options: LockOptions): Promise<HeldLock | undefined> {
  const me = `${process.pid}@${hostname()}`;
  const { staleMs = 120_000, pollMs = 250 } = options;
  await mkdir(dirname(path), { recursive: true });
  let waited = false;
  for (;;) {
    try {
      await writeFile(path, me, { flag: 'wx' });
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await options.done()) return undefined;
    const holder = (await readFile(path, 'utf8').catch(() => '')).trim();
    if (await isStale(path, holder, options.progressFile, staleMs)) {
      await rm(path, { force: true });
      continue;
    }
    if (!waited) options.onWait?.(holder);
    waited = true;
    await sleep(pollMs);
  }
}

async function isStale(
  path: string,
  holder: string,
  progressFile: string,
  staleMs: number,
): Promise<boolean> {
  const [pid, host] = holder.split('@');
  if (host === hostname() && pid !== undefined && /^\d+$/.test(pid) && !isAlive(Number(pid)))
    return true;
  const times = await Promise.all(
    [path, progressFile].map(
      async (file) => (await stat(file).catch(() => undefined))?.mtimeMs ?? 0,
    ),
  );
  return Date.now() - Math.max(...times) > staleMs;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
