/**
 * BM25 indexes served from their file (`memory_budget` below what the index needs): the same
 * results as in memory, to the bit, on both top-k algorithms; what is resident reported; a
 * damaged page taking the service out of use; and an index file past 4 GiB opened and searched.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BM25 } from '../../src/engines/bm25/index.js';
import { Bm25Index } from '../../src/engines/bm25/bm25-index.js';
import type { IndexData } from '../../src/engines/bm25/index-data.js';
import {
  openIndexFile,
  pagedPostings,
  writeIndexFile,
} from '../../src/engines/bm25/index-format.js';
import { INDEX_FILE } from '../../src/engines/bm25/index-store.js';
import { lengthToNorm } from '../../src/engines/bm25/lucene-norms.js';
import { PagedStore } from '../../src/engines/bm25/posting-store.js';
import type { WeightedTerm } from '../../src/engines/bm25/search-types.js';
import { EXHAUSTIVE_MAX_DOCS } from '../../src/engines/bm25/exhaustive-threshold.js';
import { searchTopDocs } from '../../src/engines/bm25/top-docs.js';
import { ArrayFile } from '../../src/storage/index.js';
import { writeHoleyArrayFile } from '../helpers/holey-array-file.js';
import { random } from '../helpers/random.js';
import { engineContext, memoryCatalog, MemoryTextView } from './fake-view.js';
import { randomIndexData } from './random-data.js';

const PARAMS = { k1: 0.9, b: 0.4 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bm25-paged-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The index of `data` written to a file and opened paged, keeping `listBudget` bytes of lists. */
async function pagedIndex(data: IndexData, name: string, listBudget: number) {
  const path = join(dir, name);
  await writeIndexFile(path, data, 'key');
  const opened = (await openIndexFile(path, 'key'))!;
  const paged = pagedPostings(opened, PagedStore.readCache(opened.file.pageSize));
  const index = new Bm25Index({ ...opened.heads, paged, listBudgetBytes: listBudget }, PARAMS);
  return { index, file: opened.file };
}

describe('a paged BM25 index', () => {
  it.each([
    ['MaxScore', EXHAUSTIVE_MAX_DOCS + 2_000],
    ['exhaustive', 3_000],
  ])('returns what the index in memory returns (%s), scores to the bit', async (_, docs) => {
    const data = randomIndexData(docs, docs, 3_000);
    const memory = new Bm25Index(data, PARAMS);
    // A list budget of 64 KB: lists are dropped and read again all the time.
    const { index: paged, file } = await pagedIndex(data, `random-${docs}.bm25`, 64 << 10);
    expect(paged.postings.kind).toBe('paged');
    const rand = random(7);
    const labels = Int32Array.from({ length: docs }, (_, d) => d % 3);
    for (let q = 0; q < 40; q++) {
      const terms: WeightedTerm[] = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
        const term = Math.floor(rand() * data.stats.numTerms);
        return { term, weight: memory.idf(term) };
      });
      const filter = q % 4 === 0 ? { labels, wanted: q % 3 } : undefined;
      for (const k of [10, 1000]) {
        const expected = searchTopDocs(memory, terms, k, filter);
        const actual = searchTopDocs(paged, terms, k, filter);
        expect(actual.docs).toEqual(expected.docs);
        expect(actual.scores).toEqual(expected.scores);
      }
    }
    // The lists kept within the budget (the last may pass it) and the pages of the last reads.
    expect(paged.postings.residentBytes()).toBeLessThan((64 << 10) + (8 << 20));
    await file.close();
  });

  it('opens an index file past 4 GiB and finds a posting stored past 4 GiB', async () => {
    // Two terms: "huge" with 2^30 + 2^20 postings (zeros: holes in the file) and "rare", whose one
    // posting (document 2, tf 1) comes after them, past 4 GiB of postingDocs.
    const huge = 2 ** 30 + 2 ** 20;
    const postings = huge + 1;
    const path = join(dir, 'past-4-gib.bm25');
    const stats = {
      numDocs: 3,
      docCount: 3,
      sumTotalTermFreq: 3,
      numTerms: 2,
      numPostings: postings,
    };
    const norm = lengthToNorm(1);
    await writeHoleyArrayFile(path, {
      kind: 'bm25-index',
      meta: { version: 3, key: 'key', stats },
      sections: [
        { name: 'termBytes', type: 'u8', length: 8, at: [[0, Buffer.from('hugerare')]] },
        { name: 'termOffsets', type: 'u32', length: 3, at: [[0, Uint32Array.of(0, 4, 8)]] },
        {
          name: 'postingStart',
          type: 'u32',
          length: 3,
          at: [[0, Uint32Array.of(0, huge, postings)]],
        },
        { name: 'norms', type: 'u8', length: 3, at: [[0, Uint8Array.of(norm, norm, norm)]] },
        { name: 'idBytes', type: 'u8', length: 3, at: [[0, Buffer.from('abc')]] },
        { name: 'idOffsets', type: 'u32', length: 4, at: [[0, Uint32Array.of(0, 1, 2, 3)]] },
        { name: 'postingDocs', type: 'i32', length: postings, at: [[huge, Int32Array.of(2)]] },
        { name: 'postingTfs', type: 'u16', length: postings, at: [[huge, Uint16Array.of(1)]] },
      ],
    });
    const opened = (await openIndexFile(path, 'key'))!;
    expect(opened.file.bytes).toBeGreaterThan(6 * 2 ** 30);
    const paged = pagedPostings(opened, PagedStore.readCache(opened.file.pageSize));
    const index = new Bm25Index({ ...opened.heads, paged, listBudgetBytes: 1 << 20 }, PARAMS);
    const rare = index.termId('rare');
    const top = searchTopDocs(index, [{ term: rare, weight: index.idf(rare) }], 10);
    expect(top.docs.map((d) => index.docId(d))).toEqual(['c']);
    expect(index.docFreq(index.termId('huge'))).toBe(huge);
    await opened.file.close();
  });
});

describe('the BM25 engine with a memory budget', () => {
  const DOCS = Array.from({ length: 3_000 }, (_, i) => ({
    id: String(i * 7), // integer-like ids: results must still be ranked by score
    text: `passage ${i} about ${['wings', 'rotors', 'flutter', 'lift'][i % 4]} and t${i % 97} t${i % 13} ${'drag '.repeat(i % 5)}`,
  }));
  const engine = (indexDir: string, config: Record<string, unknown> = {}) =>
    new BM25({
      name: 'bm25',
      config: { collection: 'c', index_path: join(dir, indexDir), fields: ['text'], ...config },
      context: engineContext(memoryCatalog('c', [new MemoryTextView(DOCS)]), dir),
    });
  const QUERIES = ['wings lift', 'rotors t12 drag', 'flutter t5 t96', 'passage drag lift wings'];

  it('serves from the file when the budget is below the index, with the same results', async () => {
    const memory = engine('budget');
    const paged = engine('budget', { memory_budget: '80KB' });
    await memory.start();
    await paged.start();
    expect(memory.health()).toMatchObject({ state: 'up', storage: 'memory' });
    for (const query of QUERIES)
      for (const limit of [10, 1000]) {
        const [expected] = await memory.searchBatch([{ query, limit }]);
        const [actual] = await paged.searchBatch([{ query, limit }]);
        expect(Object.entries(actual!)).toEqual(Object.entries(expected!));
      }
    const health = paged.health();
    expect(health).toMatchObject({ state: 'up', storage: 'paged', memory_budget_bytes: 80_000 });
    expect(health.resident_bytes).toBeGreaterThan(0);
    await memory.close();
    await paged.close();
  });

  it('refuses a budget below what the heads need, naming the field', async () => {
    await expect(engine('small', { memory_budget: 100 }).start()).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(/config\.memory_budget: 100 B is less than/),
    });
    expect(() => engine('bad', { memory_budget: 'lots' })).toThrow(
      /config\.memory_budget: a size such as 4096 \(bytes\), 64M/,
    );
  });

  it('takes itself out of use when a page read from the file is damaged', async () => {
    const paged = engine('damaged', { memory_budget: '80KB' });
    await paged.start();
    const path = join(dir, 'damaged', INDEX_FILE);
    const file = await ArrayFile.open(path);
    const docs = file.section('postingDocs', 'i32');
    await file.close();
    const handle = await open(path, 'r+');
    for (let at = docs.offset; at < docs.offset + docs.length * 4; at += 4096)
      await handle.write(Buffer.from([0xff]), 0, 1, at + 1);
    await handle.close();
    const error = { code: 'ERR_ENGINE', message: expect.stringMatching(/damaged.*checksum/) };
    await expect(paged.searchBatch([{ query: 'wings', limit: 10 }])).rejects.toMatchObject(error);
    expect(paged.health()).toMatchObject({ state: 'down', index: 'damaged' });
    await expect(paged.searchBatch([{ query: 'lift', limit: 10 }])).rejects.toMatchObject(error);
    await paged.close();
  });
});
