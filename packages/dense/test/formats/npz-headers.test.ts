/**
 * readNpzHeaders against archives numpy writes: np.savez (stored), np.savez_compressed
 * (deflated), and ZIP64 central-directory records (numpy writes them past 4 GiB; forced here by
 * lowering zipfile's limit). Needs python3 with numpy (Debian: python3-numpy); skipped without
 * it, except in CI.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readNpz, readNpzHeaders } from '../../src/formats/index.js';
import { findPython, tempDir } from './helpers.js';

const python = findPython();
const skip = python === null && !process.env.CI;
if (skip) console.warn('npz-headers tests skipped: no python3 with numpy (install python3-numpy)');

const WRITE = `
import sys, zipfile
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(7)
features = rng.standard_normal((1500, 96)).astype(np.float16)
doclens = np.array([500, 700, 300], dtype=np.int64)
ids = np.array(['a', 'b', 'c'])
np.savez(out + '/stored.npz', features=features, doclens=doclens, ids=ids)
np.savez_compressed(out + '/deflated.npz', features=features, doclens=doclens, ids=ids)
np.savez(out + '/fortran.npz', features=np.asfortranarray(features.astype(np.float32)), doclens=doclens, ids=ids)
zipfile.ZIP64_LIMIT = 64
zipfile.ZIP_FILECOUNT_LIMIT = 1
np.savez(out + '/zip64.npz', features=features, doclens=doclens, ids=ids)
np.savez_compressed(out + '/zip64-deflated.npz', features=features, doclens=doclens, ids=ids)
`;

describe.skipIf(skip)('readNpzHeaders', () => {
  const dir = tempDir();
  if (python !== null) {
    const run = spawnSync(python, ['-c', WRITE, dir], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
  }

  test.each(['stored', 'deflated', 'fortran', 'zip64', 'zip64-deflated'])(
    '%s: the headers and loaded members equal a whole read',
    async (name) => {
      if (python === null) throw new Error('CI needs python3 with numpy: install python3-numpy');
      const path = join(dir, `${name}.npz`);
      const whole = await readNpz(path);
      const { headers, arrays } = await readNpzHeaders(path, ['doclens', 'ids']);
      expect([...headers.keys()].sort()).toEqual(['doclens', 'features', 'ids']);
      for (const [key, array] of whole) expect(headers.get(key)?.shape).toEqual(array.shape);
      expect(headers.get('features')?.descr).toBe(name === 'fortran' ? '<f4' : '<f2');
      expect(headers.get('features')?.fortranOrder).toBe(name === 'fortran');
      expect(arrays.get('doclens')).toEqual(whole.get('doclens'));
      expect(arrays.get('ids')).toEqual(whole.get('ids'));
      expect(arrays.has('features')).toBe(false);
    },
  );

  test('the ZIP64 archive really uses ZIP64 end records', () => {
    const bytes = readFileSync(join(dir, 'zip64.npz'));
    expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x07]))).toBe(true);
  });

  test('a truncated archive fails with an error naming the file', async () => {
    for (const name of ['stored', 'deflated']) {
      const path = join(dir, `${name}-cut.npz`);
      writeFileSync(path, readFileSync(join(dir, `${name}.npz`)));
      truncateSync(path, 20_000);
      await expect(readNpzHeaders(path)).rejects.toThrow(
        `${path}: not a readable .npz (zip) archive: no end of central directory record (truncated?)`,
      );
    }
  });

  test('a member shorter than its header says fails as a whole read does, naming the member', async () => {
    // The features header claims 1600 rows; the member holds 1500.
    const bytes = readFileSync(join(dir, 'stored.npz'));
    const at = bytes.indexOf('(1500, 96)');
    bytes.write('(1600, 96)', at);
    const path = join(dir, 'short.npz');
    writeFileSync(path, bytes);
    const message = `${path}:features.npy: truncated .npy data: ${1500 * 96 * 2} of ${1600 * 96 * 2} bytes`;
    await expect(readNpzHeaders(path)).rejects.toThrow(message);
    await expect(readNpz(path)).rejects.toThrow(message);
  });

  test('not a zip at all', async () => {
    const path = join(dir, 'plain.npz');
    writeFileSync(path, 'hello');
    await expect(readNpzHeaders(path)).rejects.toThrow(
      `${path}: not a readable .npz (zip) archive`,
    );
  });
});
