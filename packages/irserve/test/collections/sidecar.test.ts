/**
 * The default writability check of sidecar folders: it asks the file system by creating and
 * removing a file, as the user the process writes as (access(W_OK) answers for the real user:
 * root, in CI, while the step below runs as nobody).
 */
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultIsWritable } from '../../src/collections/sidecar.js';
import {
  asUnprivileged,
  giveToStepUser,
  requirePermissionChecks,
} from '../helpers/unprivileged.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

describe('defaultIsWritable', () => {
  it('creates a missing folder, says yes and leaves no file there', async () => {
    const dir = join(await tempDir(), 'cache', 'offsetmap');
    expect(await defaultIsWritable(dir)).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  });

  it('says no for a folder of mode 0555 and for one it may not create, leaving nothing', async (test) => {
    // Root writes into a folder of mode 0555 anyway: as root (CI), the checks run as nobody.
    requirePermissionChecks(test);
    const dir = await tempDir();
    await mkdir(join(dir, 'corpus'));
    await writeFile(join(dir, 'corpus', 'docs.jsonl'), '');
    await giveToStepUser(dir);
    await chmod(join(dir, 'corpus'), 0o555);
    await chmod(dir, 0o555);
    try {
      const answers = await asUnprivileged(async () => [
        await defaultIsWritable(join(dir, 'corpus')),
        await defaultIsWritable(join(dir, 'cache', 'offsetmap')),
      ]);
      expect(answers).toEqual([false, false]);
      expect(await readdir(dir, { recursive: true })).toEqual(['corpus', 'corpus/docs.jsonl']);
    } finally {
      await chmod(dir, 0o755);
      await chmod(join(dir, 'corpus'), 0o755);
    }
  });

  it('names the folder when something other than a refusal is in the way', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'cache'), 'a file, not a folder');
    await expect(defaultIsWritable(join(dir, 'cache', 'offsetmap'))).rejects.toThrow(
      `cannot keep sidecar files in ${join(dir, 'cache', 'offsetmap')}: ENOTDIR`,
    );
  });
});
