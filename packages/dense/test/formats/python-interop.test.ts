/**
 * numpy itself loads what irserve writes. Needs python3 with numpy (Debian: python3-numpy);
 * skipped without it, except in CI, where a missing numpy is a failure.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { writeDictShard, writeNpy } from '../../src/formats/index.js';
import { findPython, tempDir } from './helpers.js';

const python = findPython();
const skip = python === null && !process.env.CI;
if (skip)
  console.warn('python-interop tests skipped: no python3 with numpy (install python3-numpy)');

const CHECK = `
import json, sys
import numpy as np
spec = json.load(open(sys.argv[1]))
for case in spec:
    if case["kind"] == "shard":
        d = np.load(case["path"], allow_pickle=True).item()
        assert sorted(d) == ["features", "ids"], sorted(d)
        f = d["features"]
        assert str(f.dtype) == case["dtype"], f.dtype
        assert f.shape == tuple(case["shape"]), f.shape
        assert np.array_equal(f.astype(np.float32).ravel(), np.array(case["values"], np.float32)), f
        assert d["ids"] == case["ids"], d["ids"]
    else:
        a = np.load(case["path"])
        assert str(a.dtype) == case["dtype"], a.dtype
        assert a.shape == tuple(case["shape"]), a.shape
        want = case["values"]
        got = a.ravel().tolist() if a.dtype.kind == "U" else a.astype(np.float32).ravel()
        assert (got == want) if a.dtype.kind == "U" else np.array_equal(got, np.array(want, np.float32)), a
print("ok", len(spec))
`;

describe.skipIf(skip)('numpy loads what irserve writes', () => {
  const dir = tempDir();

  test('writeDictShard (float32 and float16) and writeNpy', async () => {
    if (python === null) throw new Error('CI needs python3 with numpy: install python3-numpy');
    const values = [0.5, -1.25, 3, 65504, 1e-3, -0];
    const halfValues = [0.5, -1.25, 3, 65504, 1049 * 2 ** -20, -0];
    const ids = ['a', 'dóc-2'];
    await writeDictShard(join(dir, 's32.npy'), new Float32Array(values), 3, ids, 'float32');
    await writeDictShard(join(dir, 's16.npy'), new Float32Array(values), 3, ids, 'float16');
    await writeNpy(join(dir, 'a32.npy'), new Float32Array(values), [3, 2]);
    await writeNpy(join(dir, 'a16.npy'), new Float32Array(values), [6], { dtype: 'float16' });
    await writeNpy(join(dir, 'u.npy'), ['x', 'héllo', '😀'], [3]);
    const spec = [
      { kind: 'shard', path: join(dir, 's32.npy'), dtype: 'float32', shape: [2, 3], values, ids },
      {
        kind: 'shard',
        path: join(dir, 's16.npy'),
        dtype: 'float16',
        shape: [2, 3],
        values: halfValues,
        ids,
      },
      { kind: 'npy', path: join(dir, 'a32.npy'), dtype: 'float32', shape: [3, 2], values },
      { kind: 'npy', path: join(dir, 'a16.npy'), dtype: 'float16', shape: [6], values: halfValues },
      {
        kind: 'npy',
        path: join(dir, 'u.npy'),
        dtype: '<U5',
        shape: [3],
        values: ['x', 'héllo', '😀'],
      },
    ];
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    const run = spawnSync(python, ['-c', CHECK, join(dir, 'spec.json')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(`ok ${spec.length}`);
  });
});
