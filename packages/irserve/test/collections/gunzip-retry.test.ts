/**
 * A decompressed sidecar refused in its first directory after it was written (a permission error
 * at the rename) is written again in the next one, and its stamp describes that copy alone: the
 * next start finds it valid instead of decompressing the shard again.
 */
import type * as FsPromises from 'node:fs/promises';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { gunzipCached } from '../../src/collections/readers/gunzip-cache.js';
import { context, useTempDirs } from './helpers.js';

const refusals = vi.hoisted(() => ({ left: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    // The first rename onto a decompressed copy fails as a read-only directory would.
    rename: async (from: string, to: string) => {
      if (refusals.left > 0 && to.endsWith('.unzipped')) {
        refusals.left--;
        throw Object.assign(new Error(`EACCES: permission denied, rename '${to}'`), {
          code: 'EACCES',
        });
      }
      return actual.rename(from, to);
    },
  };
});

const tempDir = useTempDirs();

describe('gunzipCached after a refused directory', () => {
  it('stamps the copy it kept, so the next call uses it', async () => {
    const dir = await tempDir();
    const text = Array.from({ length: 2000 }, (_, i) => `{"id": "d${i}"}\n`).join('');
    const gz = join(dir, 'shard.json.gz');
    await writeFile(gz, gzipSync(text));
    await mkdir(join(dir, 'refused'));
    await mkdir(join(dir, 'user', 'gunzip'), { recursive: true });
    const ctx = context(join(dir, 'user'));
    refusals.left = 1;
    const first = await gunzipCached(gz, join(dir, 'refused'), ctx);
    expect(refusals.left).toBe(0);
    expect(first.startsWith(join(dir, 'user'))).toBe(true);
    expect(await readFile(first, 'utf8')).toBe(text);
    const stamp = JSON.parse(await readFile(`${first}.json`, 'utf8')) as { bytes: number };
    expect(stamp.bytes).toBe(Buffer.byteLength(text));
    // Valid on the next call: reported as done at once, not decompressed again.
    const read: number[] = [];
    const again = await gunzipCached(gz, join(dir, 'refused'), ctx, (n) => read.push(n));
    expect(again).toBe(first);
    expect(read).toEqual([(await readFile(gz)).length]);
  });
});
