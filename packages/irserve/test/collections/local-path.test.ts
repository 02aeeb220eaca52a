import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalPathView } from '../../src/collections/views/local-path-view.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

async function fixture(): Promise<{ root: string; base: string }> {
  const root = await tempDir();
  const base = join(root, 'frames');
  await mkdir(join(base, 'v1'), { recursive: true });
  await writeFile(join(base, 'a.jpg'), 'jpeg-a');
  await writeFile(join(base, 'v1', '001.png'), 'p1');
  await writeFile(join(base, 'v1', '002.png'), 'p2');
  await writeFile(join(base, 'v1', 'notes.txt'), 'n');
  await writeFile(join(root, 'secret.jpg'), 'secret');
  await mkdir(join(root, 'framesX'));
  await writeFile(join(root, 'framesX', 'b.jpg'), 'sibling');
  return { root, base };
}

const HOSTILE = [
  '../secret',
  '../../etc/passwd',
  '/etc/passwd',
  'v1/../../secret',
  '../',
  '../framesX/b',
  'a/../../secret',
];

describe('LocalPathView (path_template)', () => {
  it('reads one file per id with a mime type from the extension or config', async () => {
    const { base } = await fixture();
    const view = new LocalPathView({ name: 'img', baseDir: base, template: '{id}.jpg' });
    const doc = await view.get('a');
    expect(doc?.parts.map((p) => [Buffer.from(p.data).toString(), p.mime])).toEqual([
      ['jpeg-a', 'image/jpeg'],
    ]);
    expect(await view.get('missing')).toBeUndefined();
    expect(await view.has('a')).toBe(true);
    const typed = new LocalPathView({
      name: 'img',
      baseDir: base,
      template: '{id}.jpg',
      mime: 'image/x-test',
    });
    expect((await typed.get('a'))?.parts[0]?.mime).toBe('image/x-test');
  });

  it.each(HOSTILE)('refuses an id that leads outside the base directory: %s', async (id) => {
    const { base } = await fixture();
    const view = new LocalPathView({ name: 'img', baseDir: base, template: '{id}.jpg' });
    await expect(view.get(id)).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
  });

  it('refuses an absolute id with a bare {id} template, and NUL bytes', async () => {
    const { base } = await fixture();
    const view = new LocalPathView({ name: 'raw', baseDir: base, template: '{id}' });
    await expect(view.get('/etc/passwd')).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
    await expect(view.get('a.jpg\0')).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
    expect((await view.get('v1/001.png'))?.parts.length).toBe(1);
  });

  it('refuses a symlink inside the base that points outside', async () => {
    const { root, base } = await fixture();
    await symlink(join(root, 'secret.jpg'), join(base, 'link.jpg'));
    const view = new LocalPathView({ name: 'img', baseDir: base, template: '{id}.jpg' });
    await expect(view.get('link')).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
  });
});

describe('LocalPathView (path_glob)', () => {
  it('returns every match, sorted; no match is not found', async () => {
    const { base } = await fixture();
    const view = new LocalPathView({ name: 'frames', baseDir: base, glob: '{id}/*.png' });
    const doc = await view.get('v1');
    expect(doc?.parts.map((p) => Buffer.from(p.data).toString())).toEqual(['p1', 'p2']);
    expect(doc?.parts[0]?.mime).toBe('image/png');
    expect(await view.get('v2')).toBeUndefined();
    expect(await view.has('v2')).toBe(false);
  });

  it('treats glob characters in the id literally', async () => {
    const { base } = await fixture();
    const view = new LocalPathView({ name: 'frames', baseDir: base, glob: '{id}/*.png' });
    expect(await view.get('*')).toBeUndefined();
    expect(await view.get('v?')).toBeUndefined();
  });

  it.each(HOSTILE)('refuses an id that leads outside the base directory: %s', async (id) => {
    const { base } = await fixture();
    const view = new LocalPathView({ name: 'frames', baseDir: base, glob: '{id}*.jpg' });
    const result = view.get(id);
    await expect(
      result.then((d) => d?.parts.map((p) => Buffer.from(p.data).toString())),
    ).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
  });
});
