import { open, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npyPreamble } from '@irserve/dense';
import { engineContext } from 'irserve/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaidIndex } from '../../src/build/build-plaid.js';
import { memoryShards } from '../../src/build/token-shards.js';
import { PLAIDX } from '../../src/engine/plaidx.js';
import { openPlaidIndex, type PlaidIndex } from '../../src/index/plaid-index.js';
import { depthFor, type SearchDepth } from '../../src/search/depth.js';
import { plaidSearch } from '../../src/search/plaid-search.js';
import { allTokens } from '../helpers.js';
import { syntheticCorpus, type Corpus } from '../synthetic.js';

/** PLAID's search settings: RoutIR's depth for each k, a generous one, and a subset. */
function modes(
  numPassages: number,
): { name: string; depth: SearchDepth; k: number; mask?: Uint8Array }[] {
  const evenOnly = Uint8Array.from({ length: numPassages }, (_, p) => (p % 2 === 0 ? 1 : 0));
  return [
    { name: 'k 10', depth: depthFor(10), k: 10 },
    { name: 'k 100', depth: depthFor(100), k: 100 },
    { name: 'k 1000', depth: depthFor(1000), k: 1000 },
    { name: 'generous', depth: { ncells: 64, centroid_score_threshold: -1, ndocs: 4096 }, k: 50 },
    { name: 'subset', depth: depthFor(100), k: 100, mask: evenOnly },
  ];
}

describe('a PLAID index served from its files', () => {
  let dir: string;
  let corpus: Corpus;
  let memory: PlaidIndex;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plaid-paged-'));
    corpus = syntheticCorpus({ passages: 6000, dim: 32, shards: 4, queries: 3 });
    await buildPlaidIndex({
      source: memoryShards(corpus.shards),
      outputDir: join(dir, 'index'),
      partitions: 128,
      threads: 1,
    });
    memory = await openPlaidIndex(join(dir, 'index'));
  });
  afterAll(async () => {
    await memory.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers every search mode with the same passages and scores as in memory, through a cache smaller than the index', async () => {
    // The heads plus the least cache, 16 pages of 16 KiB: less than a third of the chunk files.
    const tokenBytes = memory.numEmbeddings * (4 + memory.codec.packedDim);
    const heads = memory.residentBytes() - tokenBytes;
    const paged = await openPlaidIndex(join(dir, 'index'), { memoryBudget: heads + 1 });
    expect(memory.tokens.storage).toBe('memory');
    expect(paged.tokens.storage).toBe('paged');
    try {
      for (const mode of modes(memory.numPassages))
        for (const query of corpus.queries) {
          const want = plaidSearch(memory, query, mode.depth, mode.k, mode.mask);
          const got = plaidSearch(paged, query, mode.depth, mode.k, mode.mask);
          expect(got.pids, mode.name).toEqual(want.pids);
          expect(got.scores, mode.name).toEqual(want.scores);
          expect(want.pids.length).toBeGreaterThan(0);
        }
      expect(allTokens(paged)).toEqual(allTokens(memory));
      expect(paged.residentBytes()).toBeLessThanOrEqual(heads + 256 * 1024);
    } finally {
      await paged.close();
    }
  }, 60_000);

  it('serves from the files only when the budget is smaller than the index, and refuses one below its heads', async () => {
    const roomy = await openPlaidIndex(join(dir, 'index'), { memoryBudget: 2 ** 30 });
    expect(roomy.tokens.storage).toBe('memory');
    await roomy.close();
    const tight = await openPlaidIndex(join(dir, 'index'), {
      memoryBudget: Math.floor(memory.residentBytes() / 2),
    });
    expect(tight.tokens.storage).toBe('paged');
    await tight.close();
    await expect(openPlaidIndex(join(dir, 'index'), { memoryBudget: 1000 })).rejects.toThrow(
      /config\.memory_budget: 1000 B is less than the index .* needs in memory however it is served \(.*: its centroids, IVF and passage lengths\); raise it/,
    );
  });

  it('opens without hashing the chunk files and detects a damaged page when it is read', async () => {
    const damaged = join(dir, 'damaged');
    await buildPlaidIndex({
      source: memoryShards(corpus.shards),
      outputDir: damaged,
      partitions: 128,
      threads: 1,
    });
    const file = join(damaged, '1.residuals.npy');
    const bytes = await readFile(file);
    for (let i = 200; i < bytes.length; i += 1000) bytes[i]! ^= 0x5a;
    await writeFile(file, bytes);
    await expect(openPlaidIndex(damaged)).rejects.toThrow(/1\.residuals\.npy: sha256 differs/);
    const paged = await openPlaidIndex(damaged, { storage: 'paged' });
    try {
      const generous = { ncells: 64, centroid_score_threshold: -1, ndocs: 4096 };
      expect(() => plaidSearch(paged, corpus.queries[0]!, generous, 1000)).toThrow(
        /1\.residuals\.npy: bytes \d+-\d+ do not match their checksum/,
      );
    } finally {
      await paged.close();
    }
  });

  it('says in /health and the start log where the index is and how much is resident', async () => {
    const context = engineContext({ name: 'plaid', configDir: dir });
    const budget = Math.floor(memory.residentBytes() / 2);
    const engine = new PLAIDX({
      name: 'plaid',
      config: { index_path: 'index', memory_budget: budget },
      context,
    });
    await engine.start();
    try {
      const health = engine.health();
      expect(health).toMatchObject({ state: 'up', storage: 'paged', memory_budget_bytes: budget });
      const opened = context.logs.find(/^PLAID index opened/);
      expect(opened).toMatchObject({ storage: 'paged' });
      expect(opened!['resident_bytes']).toBeLessThanOrEqual(budget);
      expect(String(opened!['msg'])).toMatch(/served from their files/);
      const query = corpus.queries[0]!;
      const rows = Array.from({ length: query.length }, (_, t) =>
        Array.from(query.vectors.subarray(t * query.dim, (t + 1) * query.dim)),
      );
      const [hits] = await engine.searchBatch([
        { service: 'plaid', query: '', query_vectors: rows, limit: 5 },
      ]);
      const want = plaidSearch(memory, query, depthFor(7), 5);
      expect(Object.keys(hits!).length).toBe(5);
      expect(Object.values(hits!).sort((a, b) => b - a)[0]).toBeCloseTo(want.scores[0]!, 5);
    } finally {
      await engine.close();
    }
  });

  it('reads a chunk file past 4 GiB from the file (a file with holes)', async () => {
    // Chunk 1 of a copy holds a passage of 2^30 + 16 tokens (never a candidate: no IVF list
    // names it), then a 3-token passage whose codes and residuals lie past 4 GiB in its files.
    const big = join(dir, 'big');
    await buildPlaidIndex({
      source: memoryShards(corpus.shards.slice(0, 1)),
      outputDir: big,
      partitions: 32,
      threads: 1,
    });
    await rm(join(big, 'irserve-manifest.json'));
    const small = await openPlaidIndex(big);
    const packedDim = small.codec.packedDim;
    const long = 2 ** 30 + 16;
    const codes = Int32Array.of(3, 1, 4);
    const residuals = Uint8Array.from({ length: 3 * packedDim }, (_, i) => (i * 37) % 256);
    const codesHead = npyPreamble('<i8', [long + 3]);
    const residualsHead = npyPreamble('|u1', [long + 3, packedDim]);
    const wide = new Int32Array(6);
    codes.forEach((c, i) => (wide[2 * i] = c));
    await writeAt(join(big, '1.codes.npy'), [
      [0, codesHead],
      [codesHead.length + long * 8, new Uint8Array(wide.buffer)],
    ]);
    await writeAt(join(big, '1.residuals.npy'), [
      [0, residualsHead],
      [residualsHead.length + long * packedDim, residuals],
    ]);
    await writeFile(join(big, 'doclens.1.json'), JSON.stringify([long, 3]));
    const meta = JSON.parse(await readFile(join(big, 'metadata.json'), 'utf8'));
    await writeFile(
      join(big, 'metadata.json'),
      JSON.stringify({ ...meta, num_chunks: 2, num_embeddings: small.numEmbeddings + long + 3 }),
    );
    const index = await openPlaidIndex(big);
    try {
      expect(index.tokens.storage).toBe('paged');
      const last = index.numPassages - 1;
      expect(index.docOffsets[last]! * packedDim).toBeGreaterThan(2 ** 32);
      expect(Array.from(index.tokens.codes(last))).toEqual([3, 1, 4]);
      expect(index.tokens.residuals(last)).toEqual(residuals);
      const query = corpus.queries[0]!;
      const want = plaidSearch(small, query, depthFor(100), 100);
      expect(plaidSearch(index, query, depthFor(100), 100)).toEqual(want);
    } finally {
      await index.close();
      await small.close();
    }
  });
});

async function writeAt(path: string, pieces: [number, Uint8Array][]): Promise<void> {
  const handle = await open(path, 'w');
  try {
    for (const [at, bytes] of pieces) await handle.write(bytes, 0, bytes.length, at);
  } finally {
    await handle.close();
  }
}
