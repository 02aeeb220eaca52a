import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, type TempDir } from '../../src/testing/index.js';
import { writeFileAtomically } from '../../src/util/write-atomically.js';

describe('writeFileAtomically', () => {
  const dirs: TempDir[] = [];
  afterAll(async () => Promise.all(dirs.map((dir) => dir.remove())));

  it('writes a new file and replaces an old one, leaving nothing else beside them', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const path = join(dir.path, 'stamp.json');
    await writeFileAtomically(path, 'first\n');
    await writeFile(join(dir.path, 'other'), 'x');
    await writeFileAtomically(path, 'second\n');
    expect(await readFile(path, 'utf8')).toBe('second\n');
    expect((await readdir(dir.path)).sort()).toEqual(['other', 'stamp.json']);
  });

  it('rejects with the error of a write that cannot happen, leaving no temporary file', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    // The target is a folder: the temporary file is written, the rename over the folder fails.
    const path = join(dir.path, 'taken');
    await writeFile(join(dir.path, 'keep'), 'x');
    await mkdir(path);
    await expect(writeFileAtomically(path, 'text')).rejects.toThrow(/EISDIR|ENOTDIR|EEXIST/);
    expect((await readdir(dir.path)).sort()).toEqual(['keep', 'taken']);
  });
});
