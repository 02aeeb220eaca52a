import { describe, expect, it } from 'vitest';
import { trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { exactTopK, randomVectors, recall } from './helpers.js';

const DIM = 32;
const N = 3000;
const K = 10;

describe.each<Metric>(['ip', 'l2'])('recall against exact search (%s)', (metric) => {
  // l2 uses vectors of varying length so that it ranks differently from ip.
  const data = randomVectors(N, DIM, 1, metric === 'ip');
  const queries = randomVectors(40, DIM, 2, metric === 'ip');
  const truth = exactTopK(data, queries, DIM, K, metric);

  it('Flat is exact, with exact scores', () => {
    const index = trainAndAdd('Flat', data, DIM, metric);
    const result = index.search(queries, K);
    expect(recall(result, truth, K)).toBe(1);
    const top = result.labels[0]!;
    let s = 0;
    for (let j = 0; j < DIM; j++) {
      const a = queries[j]!;
      const b = data[top * DIM + j]!;
      s += metric === 'ip' ? a * b : -(a - b) * (a - b);
    }
    expect(result.scores[0]).toBeCloseTo(s, 4);
  });

  it.each(['HNSW16', 'HNSW32,Flat', 'HNSW32,SQfp16'])('%s reaches recall 0.95', (factory) => {
    // One thread: a multi-threaded usearch build inserts in a varying order, so its recall varies.
    const index = trainAndAdd(factory, data, DIM, metric, { efSearch: 64, threads: 1 });
    expect(recall(index.search(queries, K), truth, K)).toBeGreaterThanOrEqual(0.95);
  });

  it('HNSW32,SQ8 ranks by the metric (int8 recall >= 0.7) with scores near exact', () => {
    const index = trainAndAdd('HNSW32,SQ8', data, DIM, metric, { efSearch: 64 });
    const result = index.search(queries, K);
    expect(recall(result, truth, K)).toBeGreaterThanOrEqual(0.7);
    const exact = trainAndAdd('Flat', data, DIM, metric).search(queries, K);
    expect(Math.abs(result.scores[0]! - exact.scores[0]!)).toBeLessThan(
      0.2 * Math.abs(exact.scores[0]!) + 0.1,
    );
  });

  it('IVF-Flat scanning every list is exact', () => {
    const index = trainAndAdd('IVF16,Flat', data, DIM, metric, { seed: 3 });
    expect(recall(index.search(queries, K, { nprobe: 16 }), truth, K)).toBe(1);
    expect(recall(index.search(queries, K, { nprobe: 4 }), truth, K)).toBeGreaterThan(0.5);
  });

  it.each(['SQfp16', 'SQ8'])('%s scans every vector: recall near exact, scores near exact', (f) => {
    const index = trainAndAdd(f, data, DIM, metric, { seed: 3 });
    const result = index.search(queries, K);
    expect(recall(result, truth, K)).toBeGreaterThanOrEqual(f === 'SQ8' ? 0.9 : 0.99);
    const exact = trainAndAdd('Flat', data, DIM, metric).search(queries, K);
    for (let i = 0; i < K; i++)
      expect(Math.abs(result.scores[i]! - exact.scores[i]!)).toBeLessThan(
        (f === 'SQ8' ? 0.02 : 0.002) * (Math.abs(exact.scores[i]!) + 1),
      );
  });

  it.each(['IVF16,SQfp16', 'IVF16,SQ8'])('%s scanning every list is near exact', (f) => {
    const index = trainAndAdd(f, data, DIM, metric, { seed: 3 });
    const min = f.endsWith('SQ8') ? 0.9 : 0.99;
    expect(recall(index.search(queries, K, { nprobe: 16 }), truth, K)).toBeGreaterThanOrEqual(min);
  });

  it('IVF-PQ finds most neighbours with a fine code', () => {
    const index = trainAndAdd('IVF8,PQ16', data, DIM, metric, { seed: 3, kmeansIterations: 10 });
    expect(recall(index.search(queries, K, { nprobe: 8 }), truth, K)).toBeGreaterThan(0.5);
  });
});

describe('search results', () => {
  const data = randomVectors(50, 8, 5);
  it('pads with -1 when k exceeds the count', () => {
    // HNSW is approximate: it may return fewer than all 50, but pads the same way.
    for (const factory of ['Flat', 'IVF2,Flat']) {
      const index = trainAndAdd(factory, data, 8, 'ip');
      const result = index.search(data.subarray(0, 16), 60, { nprobe: 2 });
      expect(result.labels.length).toBe(120);
      expect(result.labels[59]).toBe(-1);
      expect(result.labels[49]).toBeGreaterThanOrEqual(0);
      expect(result.labels[0]).toBe(0);
      expect(result.labels[60]).toBe(1);
    }
  });

  it('rejects queries of the wrong size and bad k', () => {
    const index = trainAndAdd('Flat', data, 8, 'ip');
    expect(() => index.search(new Float32Array(7), 1)).toThrow(/multiple of dim 8/);
    expect(() => index.search(new Float32Array(8), 0)).toThrow(/positive integer/);
  });

  it('vector(position) returns the stored or reconstructed vector', () => {
    const flat = trainAndAdd('Flat', data, 8, 'ip');
    expect(Array.from(flat.vector!(3))).toEqual(Array.from(data.subarray(24, 32)));
    const ivf = trainAndAdd('IVF4,Flat', data, 8, 'ip');
    expect(Array.from(ivf.vector!(3))).toEqual(Array.from(data.subarray(24, 32)));
  });

  it('is reproducible for a seed', () => {
    const a = trainAndAdd('IVF4,Flat', data, 8, 'ip', { seed: 9 }).search(data, 3);
    const b = trainAndAdd('IVF4,Flat', data, 8, 'ip', { seed: 9 }).search(data, 3);
    expect(a.labels).toEqual(b.labels);
  });
});
