import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BM25 } from '../../src/engines/bm25/index.js';
import { INDEX_FILE } from '../../src/engines/bm25/index-store.js';
import { engineContext, memoryCatalog, MemoryTextView } from './fake-view.js';

const DOCS = Array.from({ length: 50 }, (_, i) => ({
  id: `doc-${i}`,
  title: `Title ${i}`,
  text: `body text number ${i} about ${i % 2 ? 'wings' : 'rotors'} and ${'lift '.repeat(i % 5)}`,
}));

describe('BM25 index persistence', () => {
  let dir: string;
  let view: MemoryTextView;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bm25-persist-'));
    view = new MemoryTextView(DOCS.map((d) => ({ ...d })));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const engine = (config: Record<string, unknown> = {}) =>
    new BM25({
      name: 'bm25',
      config: { collection: 'c', index_path: join(dir, 'idx'), ...config },
      context: engineContext(memoryCatalog('c', [view]), dir),
    });
  const search = async (bm: BM25, query = 'wings lift title') =>
    (await bm.searchBatch([{ query, limit: 100 }]))[0]!;

  it('writes the index once and reloads it with the same results', async () => {
    const first = engine();
    const before = await search(first);
    await first.close();
    const { mtimeMs } = await stat(join(dir, 'idx', INDEX_FILE));
    const second = engine();
    await second.start();
    expect(view.enumerations).toBe(1);
    expect(await search(second)).toEqual(before);
    expect((await stat(join(dir, 'idx', INDEX_FILE))).mtimeMs).toBe(mtimeMs);
    await second.close();
  });

  it('places the index under the service cache directory by default', async () => {
    const bm = new BM25({
      name: 'bm25',
      config: { collection: 'c' },
      context: engineContext(memoryCatalog('c', [view]), dir),
    });
    await bm.start();
    expect(bm.indexDir).toBe(join(dir, 'bm25'));
    await expect(stat(join(dir, 'bm25', INDEX_FILE))).resolves.toBeTruthy();
    await bm.close();
  });

  it('rebuilds when the corpus fingerprint changes', async () => {
    const first = engine();
    expect(await search(first, 'helicopter')).toEqual({});
    await first.close();
    view.docs.push({ id: 'new', text: 'a helicopter rotor' });
    view.version++;
    const second = engine();
    expect(Object.keys(await search(second, 'helicopter'))).toEqual(['new']);
    expect(view.enumerations).toBe(2);
    await second.close();
  });

  it('rebuilds when analysis settings change, not when k1 or b change', async () => {
    await engine().start();
    await engine({ k1: 1.2, b: 0.75 }).start();
    expect(view.enumerations).toBe(1);
    const unstemmed = engine({ stemmer: 'none' });
    expect(await search(unstemmed, 'wing')).toEqual({});
    expect(view.enumerations).toBe(2);
    await engine({ stemmer: 'none', stopwords: ['and'] }).start();
    expect(view.enumerations).toBe(3);
    await engine({ stemmer: 'none', stopwords: ['and'], fields: ['text'] }).start();
    expect(view.enumerations).toBe(4);
  });

  it('rebuilds over a corrupt file', async () => {
    const first = engine();
    const before = await search(first);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'idx', INDEX_FILE), 'garbage');
    const second = engine();
    expect(await search(second)).toEqual(before);
    expect(view.enumerations).toBe(2);
  });

  it('indexes title and text as one bag of words, the title once', async () => {
    view.docs = [
      { id: 'a', title: 'Rotor', text: 'noise' },
      { id: 'b', title: 'Rotor', text: 'Rotor\nnoise' },
      { id: 'c', text: 'Rotor noise' },
    ];
    const bm = engine();
    const scores = await search(bm, 'rotor');
    expect(scores.a).toBeCloseTo(scores.b!, 12);
    expect(scores.a).toBeCloseTo(scores.c!, 12);
    const titles = engine({ fields: ['title'] });
    expect(Object.keys(await search(titles, 'noise'))).toEqual([]);
  });

  it('fails start with a clear error when the view cannot enumerate', async () => {
    const blind = new MemoryTextView(DOCS);
    Object.defineProperty(blind, 'documents', { value: undefined });
    const bm = new BM25({
      name: 'bm25',
      config: { collection: 'c', index_path: join(dir, 'blind') },
      context: engineContext(memoryCatalog('c', [blind]), dir),
    });
    await expect(bm.start()).rejects.toThrow(/cannot list its documents/);
  });

  it('refuses a current index whose data was damaged, naming the file', async () => {
    const first = engine();
    await first.start();
    await first.close();
    const path = join(dir, 'idx', INDEX_FILE);
    const bytes = await readFile(path);
    bytes[100] = bytes[100]! ^ 0xff; // inside the data: the trailer and footer are sound
    await writeFile(path, bytes);
    const second = engine();
    await expect(second.start()).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(/bm25 index .*index.* is damaged .*delete the file/),
    });
    await second.close();
  });
});
