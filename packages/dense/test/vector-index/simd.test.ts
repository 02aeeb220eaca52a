import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlatIndex, openIndex, saveIndex, type Metric } from '../../src/vector-index/index.js';
import { AdcKernel } from '../../src/vector-index/simd/adc-kernel.js';
import { DotsKernel } from '../../src/vector-index/simd/dots-kernel.js';
import { ParallelDots } from '../../src/vector-index/simd/parallel-dots.js';
import { shareVectors } from '../../src/vector-index/simd/shared-vectors.js';
import { exactTopK, randomVectors, recall } from './helpers.js';

const K = 10;

describe('batched SIMD kernel for exact search', () => {
  it.each<[Metric, number, number, number]>([
    ['ip', 8, 500, 7], // one query block, one tile, odd query count
    ['l2', 10, 301, 5], // a dimension that is not a multiple of 4, an odd vector count
    ['ip', 3000, 900, 70], // several tiles (349 rows each) and two query blocks
    ['l2', 3000, 701, 66],
  ])('%s, dim %i, %i vectors, %i queries: the exact top 10', (metric, dim, n, nq) => {
    const data = randomVectors(n, dim, 3, metric === 'ip');
    const queries = randomVectors(nq, dim, 4, metric === 'ip');
    const result = new FlatIndex(data, dim, metric, { threads: 1 }).search(queries, K);
    expect(recall(result, exactTopK(data, queries, dim, K, metric), K)).toBe(1);
    for (let q = 0; q < nq; q++) {
      const row = result.scores.subarray(q * K, (q + 1) * K);
      for (let i = 1; i < K; i++) expect(row[i - 1]!).toBeGreaterThanOrEqual(row[i]! - 1e-5);
    }
  });

  it('pads with -1 when fewer than k vectors exist', () => {
    const layout = shareVectors(randomVectors(3, 16, 5), 16, 1)!;
    const result = new DotsKernel(layout, 0).search(0, 3, randomVectors(4, 16, 6), 5);
    expect([...result.labels.subarray(0, 5)].filter((l) => l >= 0).sort()).toEqual([0, 1, 2]);
    expect(result.labels[3]).toBe(-1);
    expect(result.scores[4]).toBe(-Infinity);
  });

  it('splits the vectors over helper threads and merges the same top k', () => {
    const dim = 16;
    const n = 20_000;
    const data = randomVectors(n, dim, 7);
    const layout = shareVectors(data, dim, 3)!;
    const queries = randomVectors(12, dim, 8);
    const parallel = new ParallelDots(layout, 3).search(queries, K);
    const single = new DotsKernel(layout, 0).search(0, n, queries, K);
    expect([...parallel.labels]).toEqual([...single.labels]);
    // close() stops the helpers; a later search starts new ones and answers the same.
    const again = new ParallelDots(layout, 3);
    again.search(queries, K);
    again.close();
    expect([...again.search(queries, K).labels]).toEqual([...single.labels]);
    again.close();
    expect(recall(parallel, exactTopK(data, queries, dim, K, 'ip'), K)).toBe(1);
  });

  it('splits a large batch over helper threads when the vectors are few (k-means)', () => {
    const dim = 12;
    const centroids = randomVectors(3000, dim, 5);
    const layout = shareVectors(centroids, dim, 3)!;
    const data = randomVectors(2000, dim, 6);
    const parallel = new ParallelDots(layout, 3);
    const split = parallel.search(data, 2);
    parallel.close();
    const single = new DotsKernel(layout, 0).search(0, 3000, data, 2);
    expect([...split.labels]).toEqual([...single.labels]);
    expect([...split.scores]).toEqual([...single.scores]);
  });

  it.each<Metric>(['ip', 'l2'])(
    'FlatIndex (%s) answers a batch and its queries one by one alike, on 2 threads',
    (metric) => {
      const dim = 22;
      const data = randomVectors(9000, dim, 9, metric === 'ip');
      const queries = randomVectors(5, dim, 10, metric === 'ip');
      const index = new FlatIndex(data, dim, metric, { threads: 2 });
      const batched = index.search(queries, K);
      for (let q = 0; q < 5; q++) {
        const one = index.search(queries.subarray(q * dim, (q + 1) * dim), K);
        expect([...one.labels]).toEqual([...batched.labels.subarray(q * K, (q + 1) * K)]);
      }
      expect(recall(batched, exactTopK(data, queries, dim, K, metric), K)).toBe(1);
      // Rows are padded to 24 floats in shared memory; the vectors read back unpadded.
      expect([...index.vector(8999)]).toEqual([...data.subarray(8999 * dim)]);
      expect([...index.vectors]).toEqual([...data]);
    },
  );

  it.each<Metric>(['ip', 'l2'])('usearch (kernel: false, %s) finds the same top k', (metric) => {
    const data = randomVectors(2000, 32, 13, metric === 'ip');
    const queries = randomVectors(6, 32, 14, metric === 'ip');
    const viaKernel = new FlatIndex(data, 32, metric).search(queries, K);
    const viaUsearch = new FlatIndex(data, 32, metric, { kernel: false }).search(queries, K);
    expect([...viaUsearch.labels]).toEqual([...viaKernel.labels]);
    for (let i = 0; i < viaKernel.scores.length; i++) {
      expect(viaUsearch.scores[i]).toBeCloseTo(viaKernel.scores[i]!, 5);
    }
  });

  it('a single query over few vectors takes the one-query kernel', () => {
    const data = randomVectors(50, 12, 11);
    const query = randomVectors(1, 12, 12);
    const result = new FlatIndex(data, 12, 'ip', { threads: 1 }).search(query, 3);
    expect([...result.labels]).toEqual([...exactTopK(data, query, 12, 3, 'ip')]);
  });

  it('an index searched (its vectors moved and padded in shared memory) saves and reopens alike', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-simd-'));
    try {
      const data = randomVectors(300, 10, 15);
      const queries = randomVectors(5, 10, 16);
      const index = new FlatIndex(data, 10, 'ip');
      const before = index.search(queries, K);
      await saveIndex(
        index,
        Array.from({ length: 300 }, (_, i) => `d${i}`),
        dir,
      );
      const { index: reopened } = await openIndex(dir);
      expect([...reopened.search(queries, K).labels]).toEqual([...before.labels]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the ADC kernel sums the table entries of each code like the plain loop', () => {
    const m = 8;
    const table = randomVectors(1, m * 256, 17);
    const codes = Uint8Array.from({ length: 50 * m }, (_, i) => (i * 97 + 13) % 256);
    const kernel = new AdcKernel(m, 30);
    kernel.setTable(table);
    const sums = kernel.scan(codes, 20 * m, 30);
    for (let e = 0; e < 30; e++) {
      let want = 0;
      for (let j = 0; j < m; j++) want += table[j * 256 + codes[(20 + e) * m + j]!]!;
      expect(sums[e]).toBeCloseTo(want, 5);
    }
    expect(() => new AdcKernel(6, 10)).toThrow(/multiple of 4/);
  });

  it('the compiled kernels are up to date with their .wat sources', () => {
    const script = resolve(import.meta.dirname, '../../../../scripts/build-wasm.mjs');
    expect(() => execFileSync(process.execPath, [script, '--check'])).not.toThrow();
  });
});
