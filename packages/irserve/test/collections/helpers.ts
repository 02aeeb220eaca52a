import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach } from 'vitest';
import type { ReaderContext } from '../../src/collections/context.js';
import type { IsWritable } from '../../src/collections/sidecar.js';

export const silent = pino({ level: 'silent' });

/** A fresh temp dir per call, removed after the test. */
export function useTempDirs(): () => Promise<string> {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-coll-'));
    dirs.push(dir);
    return dir;
  };
}

export function context(userCacheDir: string, isWritable?: IsWritable): ReaderContext {
  return {
    logger: silent,
    interactive: false,
    userCacheDir,
    isWritable: isWritable ?? (async () => true),
  };
}

/** Whether a system binary exists (tests that need it skip with a message naming it). */
export function hasBinary(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function jsonl(docs: unknown[]): string {
  return docs.map((d) => JSON.stringify(d)).join('\n') + '\n';
}
