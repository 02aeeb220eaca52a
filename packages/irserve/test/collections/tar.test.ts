import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduloShard, createShardResolver } from '../../src/collections/tar/shard-resolver.js';
import { formatShard } from '../../src/collections/tar/shard-template.js';
import { TarView, type TarViewOptions } from '../../src/collections/views/tar-view.js';
import { context, hasBinary, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const haveTar = hasBinary('tar');
if (!haveTar) console.warn('tar tests skipped: the system binary "tar" is missing');

/** Makes `<dir>/<name>` from files (path -> content) with the system tar. */
async function makeTar(
  dir: string,
  name: string,
  files: Record<string, string>,
  flags: string[] = [],
): Promise<string> {
  const src = join(dir, `src-${name}`);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(src, path, '..'), { recursive: true });
    await writeFile(join(src, path), content);
  }
  const out = join(dir, name);
  execFileSync('tar', [...flags, '-cf', out, '-C', src, ...Object.keys(files)]);
  return out;
}

function view(
  dir: string,
  options: Partial<TarViewOptions> & Pick<TarViewOptions, 'template' | 'matcher'>,
): TarView {
  return new TarView({
    name: 'frames',
    resolver: undefined,
    mime: undefined,
    cacheDir: undefined,
    context: context(join(dir, 'user')),
    ...options,
  });
}

const text = (data: Uint8Array | undefined) => (data ? Buffer.from(data).toString() : undefined);

describe.skipIf(!haveTar)('TarView', () => {
  it('reads members by glob from a single tar and stores a .taridx sidecar', async () => {
    const dir = await tempDir();
    const tarPath = await makeTar(dir, 'all.tar', {
      'd1/0.jpg': 'a0',
      'd1/1.jpg': 'a1',
      'd10/0.jpg': 'b0',
      'd2.png': 'c',
    });
    const v = view(dir, { template: tarPath, matcher: { kind: 'glob', pattern: '{id}/*.jpg' } });
    const doc = await v.get('d1');
    expect(doc?.parts.map((p) => [text(p.data), p.mime])).toEqual([
      ['a0', 'image/jpeg'],
      ['a1', 'image/jpeg'],
    ]);
    expect(await v.get('d3')).toBeUndefined();
    expect(await v.has('d10')).toBe(true);
    expect((await readdir(dir)).some((n) => /^all\.tar\.[0-9a-f]{16}\.taridx$/.test(n))).toBe(true);
    await v.close();
    const again = view(dir, {
      template: tarPath,
      matcher: { kind: 'glob', pattern: '{id}/*.jpg' },
    });
    expect(text((await again.get('d10'))?.parts[0]?.data)).toBe('b0');
    await again.close();
  });

  it('rebuilds a damaged .taridx (checksum), never serving its offsets', async () => {
    const dir = await tempDir();
    const tarPath = await makeTar(dir, 'all.tar', { 'd1/0.jpg': 'a0', 'd2/0.jpg': 'b0' });
    const glob = { kind: 'glob', pattern: '{id}/*.jpg' } as const;
    const first = view(dir, { template: tarPath, matcher: glob });
    await first.get('d1');
    await first.close();
    const name = (await readdir(dir)).find((n) => n.endsWith('.taridx'))!;
    const index = await readFile(join(dir, name), 'utf8');
    // Same length, one offset changed: the rows no longer match their checksum.
    await writeFile(
      join(dir, name),
      index.replace(/,(\d)(\d*),/, (_m, a, b) => `,${(Number(a) + 1) % 10}${b},`),
    );
    const again = view(dir, { template: tarPath, matcher: glob });
    expect(text((await again.get('d2'))?.parts[0]?.data)).toBe('b0');
    expect(text((await again.get('d1'))?.parts[0]?.data)).toBe('a0');
    await again.close();
  });

  it('matches by regex with the id escaped, and handles long names (GNU and pax)', async () => {
    const dir = await tempDir();
    const long = `${'deep/'.repeat(30)}x.y.bin`;
    for (const format of ['gnu', 'pax']) {
      const tarPath = await makeTar(
        dir,
        `${format}.tar`,
        { [long]: 'long', 'x.y.bin': 'short', 'xzy.bin': 'other' },
        [`--format=${format}`],
      );
      const v = view(dir, {
        template: tarPath,
        matcher: { kind: 'regex', pattern: '(?:deep/)*{id}\\.bin' },
        mime: 'application/x-test',
      });
      const doc = await v.get('x.y');
      expect(doc?.parts.map((p) => text(p.data)).sort()).toEqual(['long', 'short']);
      expect(doc?.parts[0]?.mime).toBe('application/x-test');
      await v.close();
    }
  });

  it('chooses the shard by modulo (RoutIR rule, zero-padded), manifest or substring', async () => {
    const dir = await tempDir();
    const ids = ['alpha', 'beta', 'gamma', 'delta'];
    const byShard = new Map<number, Record<string, string>>();
    for (const id of ids) {
      const shard = moduloShard(id, 2);
      byShard.set(shard, { ...byShard.get(shard), [`${id}.txt`]: `doc ${id}` });
    }
    for (const [shard, files] of byShard)
      await makeTar(dir, formatShard('part-{shard}.tar', shard, 4), files);
    const modulo = view(dir, {
      template: join(dir, 'part-{shard}.tar'),
      matcher: { kind: 'glob', pattern: '{id}.txt' },
      resolver: createShardResolver({ kind: 'modulo', n: 2, width: 4 }, (p) => p),
    });
    for (const id of ids) expect(text((await modulo.get(id))?.parts[0]?.data)).toBe(`doc ${id}`);
    await modulo.close();

    await makeTar(dir, 'm-007.tar', { 'q1.txt': 'manifest doc' });
    await writeFile(join(dir, 'manifest.tsv'), 'id\tshard\nq1\t7\n');
    const manifest = view(dir, {
      template: join(dir, 'm-{shard:03d}.tar'),
      matcher: { kind: 'glob', pattern: '{id}.txt' },
      resolver: createShardResolver(
        { kind: 'manifest', path: 'manifest.tsv', id_column: 'id', shard_column: 'shard' },
        (p) => join(dir, p),
      ),
    });
    expect(text((await manifest.get('q1'))?.parts[0]?.data)).toBe('manifest doc');
    expect(await manifest.get('q2')).toBeUndefined();
    await manifest.close();

    await makeTar(dir, 's-ab.tar', { 'ab123.txt': 'substring doc' });
    const substring = view(dir, {
      template: join(dir, 's-{shard}.tar'),
      matcher: { kind: 'glob', pattern: '{id}.txt' },
      resolver: createShardResolver({ kind: 'substring', start: 0, end: 2 }, (p) => p),
    });
    expect(text((await substring.get('ab123'))?.parts[0]?.data)).toBe('substring doc');
    expect(await substring.get('zz9')).toBeUndefined();
    await substring.close();
  });

  it('never lets an id choose a shard outside the template directory', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'shards'));
    await makeTar(dir, 'evil.tar', { 'x.txt': 'outside' });
    const v = view(dir, {
      template: join(dir, 'shards', '{shard}.tar'),
      matcher: { kind: 'glob', pattern: '*' },
      resolver: createShardResolver({ kind: 'substring', start: 0, end: 7 }, (p) => p),
    });
    expect(await v.get('../evil')).toBeUndefined();
    await v.close();
  });

  it('rejects a file that is not a tar', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'bad.tar'), 'x'.repeat(2048));
    const v = view(dir, {
      template: join(dir, 'bad.tar'),
      matcher: { kind: 'glob', pattern: '{id}' },
    });
    await expect(v.open()).rejects.toThrow(/not a tar file/);
  });
});
