/**
 * An index larger than the service's `memory_budget` is served from its files (the head in
 * memory, the lists through a page cache of the rest of the budget): every strategy answers as
 * in memory, `bmp` and `auto` pruning with block bounds derived from the files when they fit the
 * budget; `/health` says where the index is and how much is resident.
 */
import { cp, mkdtemp, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineContext } from 'irserve/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { LSR } from '../../src/index.js';
import { openLsr, servedPaged } from '../../src/engine/opened.js';
import type { SparseManifest } from '../../src/index/manifest.js';
import { writeIndex } from '../../src/index/write-index.js';
import { queryTerms } from '../../src/search/query-terms.js';
import { buildFromVectors, randomVectors, seeded } from '../helpers/random.js';

let dir: string;
let indexBytes: number;
let floatBytes: number;
const random = seeded(17);
const queries = Array.from(
  { length: 10 },
  () => randomVectors(random, 1, { vocabulary: 2000, terms: 20, maxWeight: 2 })[0]!.vector,
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-paged-'));
  const vectors = randomVectors(random, 6000, { vocabulary: 2000, terms: 60, maxWeight: 3 });
  const manifest = await writeIndex(
    buildFromVectors(vectors, { quantization: 100, blockSize: 8, impactSlice: 512 }),
    join(dir, 'index'),
    { passageIds: 'none' },
  );
  indexBytes = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
  const float = await writeIndex(
    buildFromVectors(vectors, { quantization: 0, blockSize: 8 }),
    join(dir, 'float'),
    { passageIds: 'none' },
  );
  floatBytes = Object.values(float.files).reduce((sum, file) => sum + file.bytes, 0);
});

async function answers(
  strategy: 'exhaustive' | 'bmp' | 'auto' | 'impact-ordered',
  budget?: number,
  name = 'index',
) {
  const opened = await openLsr(join(dir, name), undefined, strategy, 'start', {
    memoryBudget: budget,
  });
  try {
    const out = [];
    let work = 0;
    for (const vector of queries)
      for (const k of [1, 10, 1000]) {
        const hits = opened.search(queryTerms(opened.lookup, vector, opened.head.quantization), {
          k,
        });
        out.push([Array.from(hits.ids), Array.from(hits.scores)]);
        if (k === 10) work += hits.scored;
      }
    return {
      out,
      work,
      storage: opened.storage,
      paged: opened.paged,
      resident: opened.residentBytes(),
    };
  } finally {
    await opened.close();
  }
}

/**
 * A budget below the index that leaves room for `bmp`'s bounds: on this small index with a
 * dense vocabulary (every term in a few percent of the passages) they take a dense row of a
 * byte per 4 passages per term, most of the index's size (a third of it on a realistic one).
 */
const bmpBudget = (bytes: number) => Math.floor(bytes * 0.85);

describe('a sparse index served under a memory budget', () => {
  it('answers from its files as from memory with every strategy, holding at most the budget', async () => {
    const expected = await answers('exhaustive');
    expect(expected.storage).toBe('memory');
    const exhaustiveWork = (await answers('exhaustive', Math.floor(indexBytes / 3))).work;
    for (const strategy of ['exhaustive', 'bmp', 'auto', 'impact-ordered'] as const) {
      const prunes = strategy === 'bmp' || strategy === 'auto';
      const budget = prunes ? bmpBudget(indexBytes) : Math.floor(indexBytes / 3);
      const paged = await answers(strategy, budget);
      expect(paged.storage).toBe('paged');
      expect(paged.out).toEqual(expected.out);
      expect(paged.resident).toBeGreaterThan(0);
      expect(paged.resident).toBeLessThanOrEqual(budget);
      expect(paged.paged?.search).toBe(prunes ? 'bmp' : 'exhaustive');
      // bmp scores a fraction of the passages exhaustive scoring touches.
      if (prunes) expect(paged.work).toBeLessThan(exhaustiveWork / 2);
    }
    // A budget the index fits in: loaded into memory.
    expect((await answers('bmp', indexBytes * 2)).storage).toBe('memory');
  });

  it('prunes with bmp from the files of a float index (quantization 0) as in memory', async () => {
    const expected = await answers('exhaustive', undefined, 'float');
    const budget = bmpBudget(floatBytes);
    const paged = await answers('bmp', budget, 'float');
    expect(paged).toMatchObject({ storage: 'paged', paged: { search: 'bmp' } });
    expect(paged.out).toEqual(expected.out);
    expect(paged.resident).toBeLessThanOrEqual(budget);
  });

  it('answers exhaustively, saying how much to give, when the bounds do not fit the budget', async () => {
    const expected = await answers('exhaustive');
    // Just above the head: room for list pages, none for the bounds.
    const head = await openLsr(join(dir, 'index'), undefined, 'exhaustive', 'start', {
      memoryBudget: Math.floor(indexBytes / 3),
    });
    const headBytes = head.residentBytes();
    await head.close();
    const tight = await answers('bmp', headBytes + (600 << 10));
    expect(tight.paged?.search).toBe('exhaustive');
    expect(tight.paged?.note).toMatch(
      /search "bmp" needs up to .* for its block bounds and 512.0 KiB of pages beside the head, .* raise memory_budget to .* or more for bmp/,
    );
    expect(tight.out).toEqual(expected.out);
  });

  it('serves at once in background mode, pruning once the bounds are derived', async () => {
    const expected = await answers('exhaustive');
    const budget = bmpBudget(indexBytes);
    const opened = await openLsr(join(dir, 'index'), undefined, 'bmp', 'background', {
      memoryBudget: budget,
    });
    try {
      const query = queryTerms(opened.lookup, queries[0]!, 100);
      const early = opened.search(query, { k: 10 });
      await opened.prepared;
      const late = opened.search(query, { k: 10 });
      expect(Array.from(late.ids)).toEqual(Array.from(early.ids));
      expect(Array.from(late.scores)).toEqual(expected.out[1]![1]);
      expect(late.scored).toBeLessThan(early.scored);
      expect(opened.residentBytes()).toBeLessThanOrEqual(budget);
    } finally {
      await opened.close();
    }
  });

  it('refuses a damaged page of the forward index when bmp reads it from the files', async () => {
    const damaged = join(dir, 'damaged');
    await cp(join(dir, 'index'), damaged, { recursive: true });
    const file = await open(join(damaged, 'forward.terms.u32'), 'r+');
    await file.write(Uint8Array.of(0xff, 0xff), 0, 2, 100);
    await file.close();
    const opened = await openLsr(damaged, undefined, 'bmp', 'start', {
      memoryBudget: bmpBudget(indexBytes),
    });
    try {
      expect(opened.paged?.search).toBe('bmp');
      expect(() =>
        queries.forEach((vector) =>
          opened.search(queryTerms(opened.lookup, vector, 100), { k: 1000 }),
        ),
      ).toThrow(/forward.terms.u32.*do not match their checksum/);
    } finally {
      await opened.close();
    }
  });

  it('refuses a budget smaller than the head, naming the field', async () => {
    await expect(
      openLsr(join(dir, 'index'), undefined, 'auto', 'start', { memoryBudget: 1000 }),
    ).rejects.toThrow(
      /config.memory_budget: 1000 B is less than the head of the index at .* needs in memory/,
    );
  });

  it('loads an index with a file past 4 GiB into memory when no budget says otherwise', () => {
    const manifest = { files: { 'inverted.passages.u32': { bytes: 2 ** 32 + 4, crc32: 0 } } };
    expect(servedPaged(manifest as unknown as SparseManifest, undefined)).toBe(false);
    expect(servedPaged(manifest as unknown as SparseManifest, 2 ** 32)).toBe(true);
  });

  it('says in /health and the start log where the index is and how much is resident', async () => {
    const context = engineContext({ name: 'lsr', configDir: dir });
    const budget = bmpBudget(indexBytes);
    const lsr = new LSR({
      name: 'lsr',
      config: { encoder: 'none', index_path: 'index', search: 'bmp', memory_budget: budget },
      context,
    });
    await lsr.start();
    try {
      const health = lsr.health();
      expect(health).toMatchObject({
        state: 'up',
        storage: 'paged',
        paged_search: 'bmp',
        memory_budget_bytes: budget,
      });
      expect(health['resident_bytes']).toBeLessThanOrEqual(budget);
      const opened = context.logs.find(/^sparse index opened/);
      expect(opened).toMatchObject({ storage: 'paged' });
      expect(String(opened!['msg'])).toMatch(
        /served from its files .* search "bmp" prunes with block bounds derived from the files/,
      );
    } finally {
      await lsr.close();
    }
  });
});
