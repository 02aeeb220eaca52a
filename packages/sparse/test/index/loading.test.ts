import { mkdtemp, readFile, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadingSearch } from '../../src/engine/loading-search.js';
import { idArray } from '../../src/index/id-table.js';
import { loadFile } from '../../src/index/load-files.js';
import { combinedChecksum } from '../../src/index/manifest.js';
import { openSparseIndex, startOpeningSparseIndex } from '../../src/index/open-index.js';
import { writeIndex } from '../../src/index/write-index.js';
import { exhaustiveScratch, exhaustiveSearch } from '../../src/search/exhaustive.js';
import { fileExhaustiveSearch, fileSearchScratch } from '../../src/search/file-exhaustive.js';
import { queryTerms } from '../../src/search/query-terms.js';
import { buildFromVectors, randomVectors, seeded } from '../helpers/random.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'irserve-sparse-loading-'));
});

async function written(name: string, quantization: number) {
  const random = seeded(quantization + 7);
  const vectors = randomVectors(random, 500, { vocabulary: 200, terms: 30, maxWeight: 3 });
  const dir = join(root, name);
  await writeIndex(buildFromVectors(vectors, { quantization, blockSize: 8 }), dir, {
    passageIds: 'none',
  });
  const queries = Array.from(
    { length: 12 },
    () => randomVectors(random, 1, { vocabulary: 200, terms: 25, maxWeight: 2.5 })[0]!.vector,
  );
  return { dir, queries };
}

describe('a sparse index that serves while it loads', () => {
  it('refuses a list damaged after the open: its page does not match its checksum (issue 39, item 2)', async () => {
    const { dir, queries } = await written('past', 50);
    const opening = await startOpeningSparseIndex(dir);
    const { head, postings } = opening;
    await opening.load();
    const path = join(dir, 'inverted.passages.u32');
    const bytes = await readFile(path);
    bytes.fill(0xff, 0, 4096); // the lists' first page
    await writeFile(path, bytes);
    const lookup = new Map(head.terms.map((term, id) => [term, id]));
    const query = queryTerms(lookup, queries[0]!, head.quantization);
    expect(() => fileExhaustiveSearch(postings, query, { k: 10 }, fileSearchScratch(head))).toThrow(
      /inverted.passages.u32: bytes 0-\d+ do not match their checksum/,
    );
    await postings.close();
  });

  for (const quantization of [50, 0])
    it(`answers from the files exactly as from memory (quantization ${quantization})`, async () => {
      const { dir, queries } = await written(`q${quantization}`, quantization);
      const opening = await startOpeningSparseIndex(dir);
      const { head, postings } = opening;
      const index = await opening.load();
      const lookup = new Map(head.terms.map((term, id) => [term, id]));
      const fromMemory = exhaustiveScratch(index);
      const fromFiles = fileSearchScratch(head);
      const filter = { labels: Int32Array.from(index.passageDocs, (d) => d % 3), wanted: 1 };
      for (const vector of queries)
        for (const options of [{ k: 1 }, { k: 10 }, { k: 1000 }, { k: 10, filter }]) {
          const query = queryTerms(lookup, vector, head.quantization);
          const expected = exhaustiveSearch(index, query, options, fromMemory);
          const got = fileExhaustiveSearch(postings, query, options, fromFiles);
          expect(Array.from(got.ids)).toEqual(Array.from(expected.ids));
          expect(Array.from(got.scores)).toEqual(Array.from(expected.scores));
        }
      await postings.close();
      expect(() => postings.read(0)).toThrow('the index files were closed');
    });

  it('switches from the files to memory, with the same answers before and after', async () => {
    const { dir, queries } = await written('switch', 50);
    const opening = await startOpeningSparseIndex(dir);
    const { search, prepared } = loadingSearch(opening, 'auto');
    const lookup = new Map(opening.head.terms.map((term, id) => [term, id]));
    const ask = () =>
      queries.map((v) => search(queryTerms(lookup, v, opening.head.quantization), { k: 10 }));
    const before = ask(); // synchronously after the call: the lists cannot have loaded yet
    expect(before.reduce((work, hits) => work + hits.work, 0)).toBeGreaterThan(0);
    await prepared;
    const after = ask();
    expect(after.map((h) => Array.from(h.ids))).toEqual(before.map((h) => Array.from(h.ids)));
    expect(after.map((h) => Array.from(h.scores))).toEqual(before.map((h) => Array.from(h.scores)));
  });

  it('stops loading when its signal aborts (the service closed)', async () => {
    const { dir } = await written('abort', 50);
    const controller = new AbortController();
    const opening = await startOpeningSparseIndex(dir, {
      signal: controller.signal,
      sliceBytes: 64,
    });
    const { prepared } = loadingSearch(opening, 'bmp', controller.signal);
    controller.abort(new Error('closed'));
    await expect(opening.load()).rejects.toThrow('closed');
    await expect(prepared).rejects.toThrow('closed');
  });

  it('opens an index written before the ids had offsets files (scanning the ids)', async () => {
    const { dir } = await written('old', 50);
    const path = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    delete manifest.files['passage-ids.offsets.u32'];
    delete manifest.files['document-ids.offsets.u32'];
    manifest.checksum = combinedChecksum(manifest.files);
    await writeFile(path, JSON.stringify(manifest));
    const { index } = await openSparseIndex(dir);
    expect(idArray(index.passageIds)).toEqual(Array.from({ length: 500 }, (_, i) => `p${i}`));
    expect(index.documentIds.at(499)).toBe('p499');
  });
});

describe('loading a file a slice at a time', () => {
  it('reads and checks exactly what a whole read gives, and names a damaged or short file', async () => {
    const path = join(root, 'data.bin');
    const data = new Uint8Array(10_007).map((_, i) => (i * 7919) % 251);
    await writeFile(path, data);
    const entry = { bytes: data.byteLength, crc32: crc32(data) };
    expect(await loadFile(root, 'data.bin', entry, { sliceBytes: 1_000 })).toEqual(data);
    expect(await loadFile(root, 'data.bin', entry, { sliceBytes: 1 << 20 })).toEqual(data);
    await expect(
      loadFile(root, 'data.bin', { ...entry, crc32: entry.crc32 ^ 1 }, { sliceBytes: 1_000 }),
    ).rejects.toThrow(`${root}: data.bin does not match its checksum`);
    await truncate(path, 5_000);
    await expect(loadFile(root, 'data.bin', entry, { sliceBytes: 1_000 })).rejects.toThrow(
      'data.bin ended after 5000 bytes, the manifest says 10007',
    );
    await expect(loadFile(root, 'missing.bin', entry)).rejects.toThrow(
      'cannot read missing.bin (ENOENT)',
    );
  });
});
