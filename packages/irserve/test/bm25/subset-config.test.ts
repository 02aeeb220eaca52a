import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BM25, parseBm25Config } from '../../src/engines/bm25/index.js';
import { engineContext, memoryCatalog, MemoryTextView } from './fake-view.js';

const DOCS = [
  { id: 'en1', text: 'wing lift' },
  { id: 'en2', text: 'wing drag' },
  { id: 'fr1', text: 'wing aile' },
  { id: 'xx', text: 'wing unlabelled' },
];

describe('subset filtering', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bm25-subset-'));
    await writeFile(join(dir, 'subsets.tsv'), 'en1\ten\nen2\ten\r\nfr1\tfr\n\nghost\tde\n');
    await writeFile(join(dir, 'subsets.json'), JSON.stringify({ en1: 'en', fr1: 'fr' }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const engine = (config: Record<string, unknown>) =>
    new BM25({
      name: 'bm25',
      config: { collection: 'c', index_path: join(dir, 'idx'), ...config },
      context: engineContext(memoryCatalog('c', [new MemoryTextView(DOCS)]), dir),
    });

  it('keeps only documents of the requested subset (TSV mapping)', async () => {
    const bm = engine({ id_to_subset_mapping: join(dir, 'subsets.tsv') });
    const [en, fr, all, none] = await bm.searchBatch([
      { query: 'wing', limit: 10, subset: 'en' },
      { query: 'wing', limit: 10, subset: 'fr' },
      { query: 'wing', limit: 10 },
      { query: 'wing', limit: 10, subset: 'de' },
    ]);
    expect(Object.keys(en!).sort()).toEqual(['en1', 'en2']);
    expect(Object.keys(fr!)).toEqual(['fr1']);
    expect(Object.keys(all!)).toHaveLength(4);
    expect(none).toEqual({});
  });

  it('reads a JSON mapping', async () => {
    const bm = engine({ id_to_subset_mapping: join(dir, 'subsets.json') });
    const [en] = await bm.searchBatch([{ query: 'wing', limit: 10, subset: 'en' }]);
    expect(Object.keys(en!)).toEqual(['en1']);
  });

  it('rejects an unknown subset, and any subset without a mapping, with 400', async () => {
    const mapped = engine({ id_to_subset_mapping: join(dir, 'subsets.tsv') });
    await expect(
      mapped.searchBatch([{ query: 'wing', limit: 10, subset: 'zz' }]),
    ).rejects.toMatchObject({
      code: 'ERR_BAD_REQUEST',
      message: expect.stringMatching(/unknown subset "zz"/),
    });
    const plain = engine({});
    await expect(
      plain.searchBatch([{ query: 'wing', limit: 10, subset: 'en' }]),
    ).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST', httpStatus: 400 });
  });

  it('fails start naming the file when the mapping is malformed', async () => {
    await writeFile(join(dir, 'bad.tsv'), 'no tab here\n');
    await expect(engine({ id_to_subset_mapping: join(dir, 'bad.tsv') }).start()).rejects.toThrow(
      /bad.tsv line 1/,
    );
  });
});

describe('BM25 config', () => {
  it('applies the defaults', () => {
    expect(parseBm25Config({ collection: 'c' })).toEqual({
      collection: 'c',
      fields: ['title', 'text'],
      k1: 0.9,
      b: 0.4,
      stemmer: 'porter',
      stopwords: 'lucene',
    });
  });

  it('rejects unknown keys and bad values, naming each field', () => {
    let error: unknown;
    try {
      parseBm25Config({ collection: 'c', k2: 1, b: 2, stemmer: 'snowball' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'ERR_CONFIG' });
    const { message } = error as Error;
    expect(message).toContain('config.k2: unknown key (did you mean "k1"?)');
    expect(message).toContain('config.b: ');
    expect(message).toContain('config.stemmer: ');
    expect(() => parseBm25Config({})).toThrow(/config\.collection/);
    expect(() => parseBm25Config({ collection: 'c', fields: ['body'] })).toThrow(
      /config\.fields\[0\]/,
    );
  });

  it('rejects an unknown collection or view when the service is created', () => {
    const context = engineContext(memoryCatalog('c', [new MemoryTextView([])]), tmpdir());
    expect(() => new BM25({ name: 'x', config: { collection: 'nope' }, context })).toThrow(
      /config\.collection: no collection "nope" \(collections: c\)/,
    );
    expect(() => new BM25({ name: 'x', config: { collection: 'c', view: 'v2' }, context })).toThrow(
      /config\.view/,
    );
  });

  it('declares the search and score roles', () => {
    const context = engineContext(memoryCatalog('c', [new MemoryTextView([])]), tmpdir());
    const bm = new BM25({ name: 'x', config: { collection: 'c' }, context });
    expect(bm.canSearch && bm.canScore).toBe(true);
    expect(bm.canFuse || bm.canDecomposeQuery).toBe(false);
  });
});
