import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assign } from '@irserve/dense';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaidIndex, type BuildPlaidOptions } from '../../src/build/build-plaid.js';
import { memoryShards } from '../../src/build/token-shards.js';
import { openPlaidIndex } from '../../src/index/plaid-index.js';
import { plaidSearch } from '../../src/search/plaid-search.js';
import { allTokens } from '../helpers.js';
import { syntheticCorpus, type Corpus } from '../synthetic.js';

async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(dir)).sort();
  return new Map(
    await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n))] as const)),
  );
}

function expectSameFiles(a: Map<string, Buffer>, b: Map<string, Buffer>): void {
  expect([...b.keys()]).toEqual([...a.keys()]);
  for (const [name, bytes] of a) expect(b.get(name)!.equals(bytes), name).toBe(true);
}

async function configOf(dir: string): Promise<Record<string, unknown>> {
  const metadata = JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')) as {
    config: Record<string, unknown>;
  };
  return metadata.config;
}

describe('irserve-build-plaid-index with --centroid_graph', () => {
  let dir: string;
  let corpus: Corpus;
  const settings = (outputDir: string): BuildPlaidOptions => ({
    source: memoryShards(corpus.shards),
    outputDir,
    nbits: 2,
    partitions: 64,
    samplePassages: 50,
    threads: 1,
    centroidGraph: { m: 16 },
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plaid-graph-'));
    // 1,200 passages of 4-11 tokens in 12 shards, 8 queries.
    corpus = syntheticCorpus({ passages: 1200, dim: 16, shards: 12, queries: 8 });
    await buildPlaidIndex({ ...settings(join(dir, 'graph')), memoryBudget: Infinity });
    const { centroidGraph: _, ...exact } = settings(join(dir, 'exact'));
    await buildPlaidIndex({ ...exact, memoryBudget: Infinity });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes the same bytes in bounded memory (several spills) as in memory', async () => {
    const bounded = await buildPlaidIndex({
      ...settings(join(dir, 'bounded')),
      memoryBudget: 128 * 1024,
    });
    expect(bounded.spills).toBeGreaterThanOrEqual(3);
    expectSameFiles(await filesOf(join(dir, 'graph')), await filesOf(join(dir, 'bounded')));
  });

  it('writes the same bytes on every run, with any number of threads', async () => {
    await buildPlaidIndex({ ...settings(join(dir, 'again')), memoryBudget: Infinity });
    await buildPlaidIndex({
      ...settings(join(dir, 'threads')),
      memoryBudget: Infinity,
      threads: 2,
    });
    const first = await filesOf(join(dir, 'graph'));
    expectSameFiles(first, await filesOf(join(dir, 'again')));
    expectSameFiles(first, await filesOf(join(dir, 'threads')));
  });

  it('records the assignment in metadata.json and plan.json; an exact build records none', async () => {
    expect(await configOf(join(dir, 'graph'))).toMatchObject({
      built_by: 'irserve-build-plaid-index',
      centroid_assignment: 'hnsw (M 16, efSearch 32)',
    });
    const plan = JSON.parse(await readFile(join(dir, 'graph', 'plan.json'), 'utf8')) as {
      config: Record<string, unknown>;
    };
    expect(plan.config.centroid_assignment).toBe('hnsw (M 16, efSearch 32)');
    expect(await configOf(join(dir, 'exact'))).not.toHaveProperty('centroid_assignment');
  });

  /** The share of the tokens of the index at `at` coded with their exact nearest centroid. */
  async function agreement(at: string): Promise<number> {
    const index = await openPlaidIndex(at);
    const { codes } = allTokens(index);
    const tokens = new Float32Array(index.numEmbeddings * index.dim);
    let row = 0;
    for (const shard of corpus.shards) {
      tokens.set(shard.features, row);
      row += shard.features.length;
    }
    const exact = assign(index.centroids, tokens, index.dim, 'ip', 1);
    return exact.filter((code, i) => code === codes[i]).length / exact.length;
  }

  it('codes tokens by the graph: exactly at M 16 over 64 centroids, not always at M 2, efSearch 1', async () => {
    expect(await agreement(join(dir, 'graph'))).toBe(1);
    await buildPlaidIndex({
      ...settings(join(dir, 'narrow')),
      centroidGraph: { m: 2, efSearch: 1 },
      memoryBudget: Infinity,
    });
    const narrow = await agreement(join(dir, 'narrow'));
    expect(narrow).toBeLessThan(1);
    expect(narrow).toBeGreaterThan(0.3);
  });

  it('finds what the exact build finds', async () => {
    const [graph, exact] = await Promise.all(
      ['graph', 'exact'].map((name) => openPlaidIndex(join(dir, name))),
    );
    const generous = { ncells: 16, centroid_score_threshold: -1, ndocs: 4096 };
    let overlap = 0;
    for (const query of corpus.queries) {
      const want = new Set(plaidSearch(exact!, query, generous, 10).pids);
      overlap += plaidSearch(graph!, query, generous, 10).pids.filter((p) => want.has(p)).length;
    }
    expect(overlap / (10 * corpus.queries.length)).toBeGreaterThanOrEqual(0.8);
  });

  it.each([
    [{ m: 1 }, /--centroid_graph must be an integer from 2 to 512 .*got 1/],
    [{ m: 32.5 }, /--centroid_graph must be an integer/],
    [{ m: 32, efSearch: 0 }, /--centroid_graph_ef must be an integer from 1 to 4096, got 0/],
  ])('refuses centroidGraph %j before any work, naming the flag', async (graph, message) => {
    await expect(
      buildPlaidIndex({ ...settings(join(dir, 'refused')), centroidGraph: graph }),
    ).rejects.toThrow(message);
    expect((await readdir(dir)).filter((n) => /refused/.test(n))).toEqual([]);
  });
});
