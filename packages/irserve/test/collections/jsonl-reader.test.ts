import { chmod, mkdir, readdir, stat, utimes, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CONSECUTIVE_BAD_LINES } from '../../src/collections/offset-map/build.js';
import { JsonlReader } from '../../src/collections/readers/jsonl-reader.js';
import { defaultIsWritable, hash16 } from '../../src/collections/sidecar.js';
import { context, jsonl, useTempDirs } from './helpers.js';
import { readFile, realpath } from 'node:fs/promises';
import { random } from '../helpers/random.js';
import { testApp } from '../helpers/app.js';
import {
  asUnprivileged,
  giveToStepUser,
  requirePermissionChecks,
} from '../helpers/unprivileged.js';

const tempDir = useTempDirs();

async function corpus(
  content: string,
  name = 'docs.jsonl',
): Promise<{ dir: string; path: string }> {
  const dir = await tempDir();
  const path = join(dir, name);
  await writeFile(path, content);
  return { dir, path };
}

function reader(
  path: string,
  userCacheDir: string,
  extra: { cacheDir?: string; idField?: string; isWritable?: (d: string) => Promise<boolean> } = {},
) {
  return new JsonlReader(
    { path, idField: extra.idField ?? 'id', cacheDir: extra.cacheDir },
    context(userCacheDir, extra.isWritable),
  );
}

describe('JsonlReader sidecar placement', () => {
  it('names the sidecar <basename>.<hash16>.offsetmap and puts it beside the corpus by default', async () => {
    const { dir, path } = await corpus(jsonl([{ id: 'a', text: 'x' }]));
    const r = reader(path, join(dir, 'user'));
    await r.open();
    const expected = join(dir, `docs.jsonl.${hash16(await realpath(path))}.offsetmap`);
    expect(r.sidecarPath).toBe(await realpath(expected).catch(() => expected));
    expect(hash16('x')).toMatch(/^[0-9a-f]{16}$/);
    await r.close();
  });

  it('uses the view cache directory when set (created when missing)', async () => {
    const { dir, path } = await corpus(jsonl([{ id: 'a' }]));
    const cacheDir = join(dir, 'cache', 'maps');
    const r = new JsonlReader(
      { path, idField: 'id', cacheDir },
      context(join(dir, 'user'), defaultIsWritable),
    );
    await r.open();
    expect(r.sidecarPath?.startsWith(cacheDir)).toBe(true);
    expect((await readdir(dir)).filter((n) => n.endsWith('.offsetmap'))).toEqual([]);
    await r.close();
  });

  it('falls back to <userCacheDir>/offsetmap when the corpus directory is not writable', async () => {
    const { dir, path } = await corpus(jsonl([{ id: 'a' }]));
    const user = join(dir, 'user');
    const notCorpusDir = async (d: string) => d !== dir && defaultIsWritable(d);
    const r = reader(path, user, { isWritable: notCorpusDir });
    await r.open();
    expect(r.sidecarPath?.startsWith(join(user, 'offsetmap'))).toBe(true);
    await r.close();
    // A second reader finds it there and does not rebuild.
    const r2 = reader(path, user, { isWritable: notCorpusDir });
    await r2.open();
    expect(r2.sidecarPath).toBe(r.sidecarPath);
    expect(await r2.getLine('a')).toBe('{"id":"a"}');
    await r2.close();
  });

  it('falls back to <userCacheDir>/offsetmap when the corpus folder is really read-only (0555)', async (test) => {
    // Root writes into a folder of mode 0555 anyway: as root (CI), the readers run as nobody.
    requirePermissionChecks(test);
    const { dir, path } = await corpus(jsonl([{ id: 'a' }]));
    const home = await tempDir();
    await chmod(home, 0o755);
    await giveToStepUser(home);
    await chmod(path, 0o644);
    await chmod(dir, 0o555);
    const user = join(home, 'user');
    const start = async () => {
      const r = new JsonlReader(
        { path, idField: 'id', cacheDir: undefined },
        context(user, defaultIsWritable),
      );
      await r.open();
      const line = await r.getLine('a');
      await r.close();
      return { sidecar: r.sidecarPath!, mtimeMs: (await stat(r.sidecarPath!)).mtimeMs, line };
    };
    try {
      const [first, second] = await asUnprivileged(async () => {
        const built = await start();
        await new Promise((done) => setTimeout(done, 20));
        return [built, await start()];
      });
      const name = `docs.jsonl.${hash16(await realpath(path))}.offsetmap`;
      expect(first).toMatchObject({ sidecar: join(user, 'offsetmap', name), line: '{"id":"a"}' });
      // The second start finds it there and does not rebuild.
      expect(second).toEqual(first);
      // Nothing written in the corpus folder, not even the writability probe.
      expect(await readdir(dir)).toEqual(['docs.jsonl']);
    } finally {
      await chmod(dir, 0o755);
    }
  });

  it('reloads a fresh map without rebuilding and rebuilds a stale one', async () => {
    const { dir, path } = await corpus(jsonl([{ id: 'a', text: 'one' }]));
    const r = reader(path, join(dir, 'user'));
    await r.open();
    const sidecar = r.sidecarPath!;
    const first = (await stat(sidecar)).mtimeMs;
    await r.close();
    await new Promise((done) => setTimeout(done, 20));
    const again = reader(path, join(dir, 'user'));
    await again.open();
    expect((await stat(sidecar)).mtimeMs).toBe(first);
    await again.close();
    await appendFile(path, jsonl([{ id: 'b', text: 'two' }]));
    const later = new Date(Date.now() + 5000);
    await utimes(path, later, later);
    const stale = reader(path, join(dir, 'user'));
    expect(await stale.getLine('b')).toBe('{"id":"b","text":"two"}');
    expect((await stat(sidecar)).mtimeMs).not.toBe(first);
    await stale.close();
  });

  it('rebuilds a damaged sidecar', async () => {
    const { dir, path } = await corpus(jsonl([{ id: 'a' }]));
    const r = reader(path, join(dir, 'user'));
    await r.open();
    await r.close();
    await writeFile(r.sidecarPath!, 'garbage');
    const again = reader(path, join(dir, 'user'));
    expect(await again.has('a')).toBe(true);
    await again.close();
  });

  // A same-size file with flipped bytes (the examination's case): the checksum catches it.
  for (const [label, fraction] of [
    ['a few flipped bytes', 0.002],
    ['a fifth of the file', 0.2],
  ] as const) {
    it(`rebuilds a same-size sidecar with ${label} damaged, and answers every lookup`, async () => {
      const docs = Array.from({ length: 500 }, (_, i) => ({ id: `doc-${i}`, text: `text ${i}` }));
      const { dir, path } = await corpus(jsonl(docs));
      const first = reader(path, join(dir, 'user'));
      await first.open();
      await first.close();
      const bytes = await readFile(first.sidecarPath!);
      const flip = random(fraction === 0.2 ? 7 : 3);
      const headerEnd = bytes.readUInt32LE(8) + 12;
      const damaged = Math.max(1, Math.floor(bytes.length * fraction));
      for (let i = 0; i < damaged; i++) {
        const at = headerEnd + Math.floor(flip() * (bytes.length - headerEnd));
        bytes[at] = bytes[at]! ^ 0xff;
      }
      await writeFile(first.sidecarPath!, bytes);
      const again = reader(path, join(dir, 'user'));
      for (const doc of docs) expect(await again.getLine(doc.id)).toBe(JSON.stringify(doc));
      await again.close();
      expect((await readFile(first.sidecarPath!)).equals(bytes)).toBe(false);
    });
  }
});

describe('JsonlReader lines', () => {
  it(`accepts ${MAX_CONSECUTIVE_BAD_LINES} consecutive bad lines and fails on one more, naming the line`, async () => {
    const bad = (n: number) => Array.from({ length: n }, (_, i) => `not json ${i}`).join('\n');
    const ok = await corpus(`{"id":"a"}\n${bad(10)}\n{"id":"b"}\n`);
    const r = reader(ok.path, join(ok.dir, 'user'));
    expect(await r.has('b')).toBe(true);
    await r.close();
    const ko = await corpus(`{"id":"a"}\n${bad(11)}\n{"id":"b"}\n`);
    await expect(reader(ko.path, join(ko.dir, 'user')).open()).rejects.toThrow(
      /line 12: more than 10 consecutive/,
    );
  });

  it('counts a JSON line without the id field, or a non-object, as bad', async () => {
    const lines = Array.from({ length: 11 }, (_, i) => (i % 2 ? '[1,2]' : `{"other":${i}}`)).join(
      '\n',
    );
    const ko = await corpus(`${lines}\n`);
    await expect(reader(ko.path, join(ko.dir, 'user')).open()).rejects.toThrow(/line 11/);
  });

  it('fails a short corpus whose lines lack the id field, naming the fields they have (issue 39, item 4)', async () => {
    const lines = ['{"_id":"d1","text":"one"}', '{"_id":"d2","text":"two"}'].join('\n');
    const ko = await corpus(`${lines}\n`);
    await expect(reader(ko.path, join(ko.dir, 'user')).open()).rejects.toThrow(
      /no line has a string or number "id" field \(line 1 has the fields "_id", "text" but no "id": set the collection's id_field/,
    );
    // Some lines without it: served, and the warning says which field is missing.
    const mixed = await corpus(`{"id":"a"}\n{"_id":"b","text":"x"}\n`);
    const r = reader(mixed.path, join(mixed.dir, 'user'));
    expect(await r.has('a')).toBe(true);
    await r.close();
  });

  it('stops the start of a BM25 service over such a collection (was: an index of 0 documents)', async () => {
    const ko = await corpus('{"_id":"d1","text":"one"}\n{"_id":"d2","text":"two"}\n');
    const config = {
      collections: [{ name: 'c', doc_path: ko.path, id_field: 'id', content_field: 'text' }],
      services: [{ name: 'bm25', engine: 'BM25', config: { collection: 'c' } }],
    };
    await expect(testApp(config, { cacheDir: join(ko.dir, 'cache') })).rejects.toThrow(
      /no line has a string or number "id" field \(line 1 has the fields "_id", "text"/,
    );
  });

  it('handles numeric ids, unicode, CRLF, empty lines, escapes and a last line without newline', async () => {
    const content = [
      '\ufeff{"id": 1, "text": "one"}',
      '{"text": "id later", "id": 2}',
      '',
      '   ',
      '{"id":"héllo 🌍","text":"unicode"}\r',
      '{"id":"q\\"uote","text":"escaped"}',
      '{"id":"\\u00e9t\\u00e9","text":"escaped unicode"}',
      '{"id": 3.5, "text": "float"}',
      '{"id":"last","text":"no newline"}',
    ].join('\n');
    const { dir, path } = await corpus(content);
    const r = reader(path, join(dir, 'user'));
    expect(JSON.parse((await r.getLine('1'))!)).toMatchObject({ text: 'one' });
    expect(JSON.parse((await r.getLine('2'))!)).toMatchObject({ text: 'id later' });
    expect(JSON.parse((await r.getLine('héllo 🌍'))!)).toMatchObject({ text: 'unicode' });
    expect(JSON.parse((await r.getLine('q"uote'))!)).toMatchObject({ text: 'escaped' });
    expect(JSON.parse((await r.getLine('été'))!)).toMatchObject({ text: 'escaped unicode' });
    expect(JSON.parse((await r.getLine('3.5'))!)).toMatchObject({ text: 'float' });
    expect(JSON.parse((await r.getLine('last'))!)).toMatchObject({ text: 'no newline' });
    expect(await r.getLine('missing')).toBeUndefined();
    expect(await r.size()).toBe(7);
    await r.close();
  });

  it('keeps the last occurrence of a duplicate id (as RoutIR) and enumerates each id once', async () => {
    const { dir, path } = await corpus(
      jsonl([
        { id: 'a', v: 1 },
        { id: 'b', v: 2 },
        { id: 'a', v: 3 },
      ]),
    );
    const r = reader(path, join(dir, 'user'));
    expect(JSON.parse((await r.getLine('a'))!)).toMatchObject({ v: 3 });
    const seen: string[] = [];
    for await (const entry of r.entries()) seen.push(entry.id);
    expect(seen).toEqual(['b', 'a']);
    await r.close();
  });

  it('uses another id field, and rebuilds when the id field changes', async () => {
    const { dir, path } = await corpus(jsonl([{ docid: 'x1', id: 'a' }]));
    const r = reader(path, join(dir, 'user'), { idField: 'docid' });
    expect(await r.has('x1')).toBe(true);
    await r.close();
    const r2 = reader(path, join(dir, 'user'));
    expect(await r2.has('a')).toBe(true);
    await r2.close();
  });

  it('finds lines across read-chunk boundaries (a corpus over 8 MiB)', async () => {
    const filler = 'x'.repeat(1000);
    const docs = Array.from({ length: 9000 }, (_, i) => ({ id: `d${i}`, text: `${i} ${filler}` }));
    const { dir, path } = await corpus(jsonl(docs));
    const r = reader(path, join(dir, 'user'));
    for (const i of [0, 1, 4200, 8388, 8389, 8390, 8999]) {
      expect(JSON.parse((await r.getLine(`d${i}`))!).text).toBe(`${i} ${filler}`);
    }
    expect(await r.size()).toBe(9000);
    await r.close();
  });

  it('serves concurrent lookups (positioned reads, no shared file position)', async () => {
    const docs = Array.from({ length: 500 }, (_, i) => ({ id: String(i), text: `t${i}` }));
    const { dir, path } = await corpus(jsonl(docs));
    const r = reader(path, join(dir, 'user'));
    const lines = await Promise.all(docs.map((d) => r.getLine(d.id)));
    lines.forEach((line, i) => expect(JSON.parse(line!).text).toBe(`t${i}`));
    await r.close();
  });

  it('reports a missing corpus', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'x'));
    await expect(reader(join(dir, 'x', 'nope.jsonl'), join(dir, 'user')).open()).rejects.toThrow(
      /ENOENT/,
    );
  });
});
