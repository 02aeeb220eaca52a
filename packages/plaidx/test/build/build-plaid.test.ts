import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaidIndex } from '../../src/build/build-plaid.js';
import { memoryShards } from '../../src/build/token-shards.js';
import { decompressRow } from '../../src/index/codec.js';
import { openPlaidIndex, type PlaidIndex } from '../../src/index/plaid-index.js';
import { depthFor } from '../../src/search/depth.js';
import { maxSim } from '../../src/search/maxsim.js';
import { plaidSearch } from '../../src/search/plaid-search.js';
import { allTokens } from '../helpers.js';
import { syntheticCorpus, type Corpus } from '../synthetic.js';

function exactTop(corpus: Corpus, q: number, k: number): number[] {
  const scored: { pid: number; score: number }[] = [];
  let pid = 0;
  for (const shard of corpus.shards) {
    let row = 0;
    for (const length of shard.doclens) {
      scored.push({ pid: pid++, score: maxSim(corpus.queries[q]!, shard.features, row, length) });
      row += length;
    }
  }
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((x) => x.pid);
}

function decodeAll(index: PlaidIndex): Float32Array {
  const out = new Float32Array(index.numEmbeddings * index.dim);
  const { codes, residuals } = allTokens(index);
  for (let e = 0; e < index.numEmbeddings; e++)
    decompressRow(index.codec, index.centroids, codes[e]!, residuals, e, out, e * index.dim);
  // ColBERT normalises decompressed tokens before MaxSim (IndexScorer.score_pids).
  for (let o = 0; o < out.length; o += index.dim) {
    const row = out.subarray(o, o + index.dim);
    const norm = Math.hypot(...row);
    for (let j = 0; j < index.dim; j++) row[j]! /= norm;
  }
  return out;
}

describe('buildPlaidIndex', () => {
  let dir: string;
  let corpus: Corpus;
  let index: PlaidIndex;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plaid-build-'));
    corpus = syntheticCorpus({ passages: 600, dim: 32, shards: 3, queries: 8 });
    const report = await buildPlaidIndex({
      source: memoryShards(corpus.shards),
      outputDir: join(dir, 'index'),
      nbits: 2,
      partitions: 256,
    });
    expect(report).toMatchObject({ passages: 600, dim: 32, nbits: 2, partitions: 256, chunks: 3 });
    index = await openPlaidIndex(join(dir, 'index'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes the .npy layout with every passage', () => {
    expect(index.layout).toBe('npy');
    expect(index.numPassages).toBe(600);
    expect(index.numCentroids).toBe(256);
  });

  it('recall@10 is 1 against brute-force MaxSim over the decompressed, normalised index at generous settings', () => {
    const generous = { ncells: 64, centroid_score_threshold: -1, ndocs: 4096 };
    const decoded = decodeAll(index);
    corpus.queries.forEach((query) => {
      const truth = Array.from({ length: index.numPassages }, (_, pid) => ({
        pid,
        score: maxSim(query, decoded, index.docOffsets[pid]!, index.doclens[pid]!),
      }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const hits = plaidSearch(index, query, generous, 10);
      expect(new Set(hits.pids)).toEqual(new Set(truth.map((t) => t.pid)));
      hits.scores.forEach((score, i) => expect(score).toBeCloseTo(truth[i]!.score, 3));
    });
  });

  // Against the uncompressed embeddings the residual codec's error reorders near ties (2 bits
  // a dimension at dim 32 is coarse); bench/plaidx.mjs measures this at dim 128.
  it('recall@10 against MaxSim over the original embeddings stays high at generous settings', () => {
    const generous = { ncells: 64, centroid_score_threshold: -1, ndocs: 4096 };
    let found = 0;
    corpus.queries.forEach((query, q) => {
      const truth = new Set(exactTop(corpus, q, 10));
      found += plaidSearch(index, query, generous, 10).pids.filter((pid) => truth.has(pid)).length;
    });
    expect(found / (10 * corpus.queries.length)).toBeGreaterThanOrEqual(0.75);
  });

  it("recall@10 at RoutIR's k <= 10 depth is reported", () => {
    let found = 0;
    corpus.queries.forEach((query, q) => {
      const truth = new Set(exactTop(corpus, q, 10));
      found += plaidSearch(index, query, depthFor(10), 10).pids.filter((pid) =>
        truth.has(pid),
      ).length;
    });
    const recall = found / (10 * corpus.queries.length);
    console.log(
      `recall@10 at RoutIR's default depth (ncells 1, threshold 0.5, ndocs 256): ${recall.toFixed(3)}`,
    );
    expect(recall).toBeGreaterThan(0.7);
  });

  it('refuses a non-empty output directory and a damaged file (checksum manifest)', async () => {
    await expect(
      buildPlaidIndex({ source: memoryShards(corpus.shards), outputDir: join(dir, 'index') }),
    ).rejects.toThrow(/not empty/);
    await truncate(join(dir, 'index', '1.residuals.npy'), 100);
    await expect(openPlaidIndex(join(dir, 'index'))).rejects.toThrow(/1\.residuals\.npy.*manifest/);
  });

  it('refuses shards of different dimensions and an unsupported nbits', async () => {
    const other = syntheticCorpus({ passages: 20, dim: 16, shards: 1, queries: 0 });
    await expect(
      buildPlaidIndex({
        source: memoryShards([corpus.shards[0]!, other.shards[0]!]),
        outputDir: join(dir, 'mixed'),
      }),
    ).rejects.toThrow(/shard 1: dimension 16 differs/);
    await expect(
      buildPlaidIndex({
        source: memoryShards(corpus.shards),
        outputDir: join(dir, 'n3'),
        nbits: 3,
      }),
    ).rejects.toThrow(/nbits must be 1, 2 or 4/);
  });
});
