/**
 * The builder counts `.npz` token shards from their headers (measureTokenShard) instead of
 * loading them: the counts equal a full load's, the checks that need no embedding values fail
 * with the same messages, and a non-finite value still fails the build where the shard is
 * loaded. Shards are written by numpy (Debian: python3-numpy); skipped without it, except in CI.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPython } from '../../../dense/test/formats/helpers.js';
import { buildPlaidIndex } from '../../src/build/build-plaid.js';
import {
  fileShards,
  measureTokenShard,
  readTokenShard,
  shapeOf,
} from '../../src/build/token-shards.js';

const python = findPython();
const skip = python === null && !process.env.CI;
if (skip) console.warn('shard-count tests skipped: no python3 with numpy (install python3-numpy)');

const WRITE = `
import sys
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(3)
doclens = rng.integers(4, 30, size=40)
features = rng.standard_normal((int(doclens.sum()), 16)).astype(np.float16)
ids = np.array(['p%d' % i for i in range(40)])
np.savez(out + '/stored.npz', features=features, doclens=doclens, ids=ids)
np.savez_compressed(out + '/deflated.npz', features=features.astype(np.float32), doclens=list(doclens), ids=np.arange(40))
np.savez(out + '/bad-doclens.npz', features=features, doclens=doclens[:-1], ids=ids[:-1])
np.savez(out + '/bad-ids.npz', features=features, doclens=doclens, ids=ids[:-1])
np.savez(out + '/no-ids.npz', features=features, doclens=doclens)
np.savez(out + '/one-dim.npz', features=features.ravel(), doclens=doclens, ids=ids)
np.savez(out + '/other-dim.npz', features=features[:, :8], doclens=doclens, ids=ids)
bad = features.copy()
bad[37, 5] = np.nan
np.savez(out + '/nan.npz', features=bad, doclens=doclens, ids=ids)
np.save(out + '/dict.npy', {'features': features, 'doclens': doclens, 'ids': list(ids)}, allow_pickle=True)
`;

describe.skipIf(skip)('counting token shards from their headers', () => {
  let dir: string;
  const path = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plaid-count-'));
    const run = spawnSync(python ?? 'python3', ['-c', WRITE, dir], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`numpy could not write the shards: ${run.stderr}`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each(['stored.npz', 'deflated.npz', 'dict.npy'])(
    '%s: the counts equal a full load',
    async (name) => {
      const shape = await measureTokenShard(path(name));
      expect(shape).toEqual(shapeOf(await readTokenShard(path(name))));
      expect(shape.passages).toBe(40);
      expect(shape.dim).toBe(16);
    },
  );

  it.each([
    ['bad-doclens.npz', /"doclens" sums to \d+ but "features" has \d+ rows/],
    ['bad-ids.npz', /40 passages in "doclens" but 39 ids/],
    ['no-ids.npz', /needs the arrays "features", "doclens" and "ids"/],
    ['one-dim.npz', /"features" must be a 2-D float array/],
  ])('%s fails with the message a full load gives, naming the file', async (name, message) => {
    const counted = await measureTokenShard(path(name)).catch((error: Error) => error.message);
    const loaded = await readTokenShard(path(name)).catch((error: Error) => error.message);
    expect(counted).toMatch(message);
    expect(counted).toContain(path(name));
    expect(counted).toBe(loaded);
  });

  it('a truncated shard fails the build before any training, naming the file', async () => {
    await copyFile(path('stored.npz'), path('cut.npz'));
    await truncate(path('cut.npz'), 2000);
    await expect(measureTokenShard(path('cut.npz'))).rejects.toThrow(
      `${path('cut.npz')}: not a readable .npz (zip) archive`,
    );
    await expect(
      buildPlaidIndex({
        source: fileShards([path('stored.npz'), path('cut.npz')]),
        outputDir: path('index-cut'),
      }),
    ).rejects.toThrow(path('cut.npz'));
  });

  it('shards of different dimensions fail as before', async () => {
    await expect(
      buildPlaidIndex({
        source: fileShards([path('stored.npz'), path('other-dim.npz')]),
        outputDir: path('index-dim'),
      }),
    ).rejects.toThrow(`${path('other-dim.npz')}: dimension 8 differs from the first shard's 16`);
  });

  it("a shard over the budget's share fails from its header", async () => {
    // 16 dims x 4 bytes x the rows: a budget whose half is less than that.
    const { rows } = await measureTokenShard(path('stored.npz'));
    await expect(
      buildPlaidIndex({
        source: fileShards([path('stored.npz')]),
        outputDir: path('index-budget'),
        memoryBudget: Math.max(64 * 1024, rows * 16 * 4),
      }),
    ).rejects.toThrow(/stored\.npz: [\d.]+ \w+ of token embeddings, more than the/);
  });

  it('a non-finite value still fails the build, naming the file and the token', async () => {
    await expect(
      buildPlaidIndex({
        source: fileShards([path('stored.npz'), path('nan.npz')]),
        outputDir: path('index-nan'),
        partitions: 16,
      }),
    ).rejects.toThrow(`${path('nan.npz')}: "features" holds a non-finite value at token 37`);
  });
});
