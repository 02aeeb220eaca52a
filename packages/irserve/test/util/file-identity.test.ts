import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesIdentity } from '../../src/util/file-identity.js';

describe('filesIdentity (shared cache fingerprints)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'irserve-identity-'));
  });

  async function folder(name: string, files: Record<string, Uint8Array | string>) {
    const dir = join(root, name);
    await mkdir(join(dir, 'sub'), { recursive: true });
    for (const [file, content] of Object.entries(files)) await writeFile(join(dir, file), content);
    return dir;
  }

  it('is the content, not the path, of files and folders', async () => {
    const files = { 'config.json': '{"a":1}', 'sub/weights.bin': new Uint8Array(1000).fill(7) };
    const a = await folder('a', files);
    const b = await folder('b', files);
    const c = await folder('c', { ...files, 'config.json': '{"a":2}' });
    const renamed = await folder('d', {
      'config2.json': '{"a":1}',
      'sub/weights.bin': files['sub/weights.bin'],
    });
    expect(await filesIdentity({ model: a })).toBe(await filesIdentity({ model: b }));
    expect(await filesIdentity({ model: c })).not.toBe(await filesIdentity({ model: a }));
    expect(await filesIdentity({ model: renamed })).not.toBe(await filesIdentity({ model: a }));
    expect(await filesIdentity({ model: 'a' }, root)).toBe(await filesIdentity({ model: a }));
  });

  it('tells apart a missing path, no path, and the name a file is given under', async () => {
    const none = await filesIdentity({ subsets: undefined });
    const missing = await filesIdentity({ subsets: join(root, 'nothing.tsv') });
    expect(none).not.toBe(missing);
    const file = join(root, 'subsets.tsv');
    await writeFile(file, 'd1\tx\n');
    expect(await filesIdentity({ subsets: file })).not.toBe(await filesIdentity({ mapping: file }));
  });

  it('sees a change anywhere in the sampled parts of a large file', async () => {
    const size = 40 * 1024 * 1024;
    const weights = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) weights[i] = i % 251;
    const path = join(root, 'large.bin');
    await writeFile(path, weights);
    const before = await filesIdentity({ model: path });
    // Retrained weights change throughout: one changed byte per 64 KiB is seen.
    for (let i = 100; i < size; i += 64 * 1024) weights[i] = weights[i]! ^ 1;
    await writeFile(path, weights);
    expect(await filesIdentity({ model: path })).not.toBe(before);
  });
});
