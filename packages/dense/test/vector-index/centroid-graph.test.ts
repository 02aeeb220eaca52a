import { describe, expect, it } from 'vitest';
import { parseFactory, trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { CentroidAssigner } from '../../src/vector-index/centroid-assigner.js';
import { CentroidGraph } from '../../src/vector-index/centroid-graph.js';
import { trainIvf } from '../../src/vector-index/ivf-build.js';
import type { IvfIndex } from '../../src/vector-index/ivf.js';
import { clusteredVectors, exactTopK, recall } from './helpers.js';

const DIM = 48;
const N = 20_000;
const NLIST = 512;
const K = 10;
const TRAIN = { seed: 5, kmeansIterations: 6, threads: 1 };

function agreement(a: Int32Array, b: Int32Array): number {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

// Generous timeouts: k-means on 20,000 vectors, and a shared machine may pause the run.
describe.each<Metric>(['ip', 'l2'])(
  'IVF<n>_HNSW<M>: assignment by a graph (%s)',
  { timeout: 300_000 },
  (metric) => {
    // 2,000 clusters for 512 lists: list boundaries cut through clusters, as in real data.
    const data = clusteredVectors(N, DIM, 2000, 11);
    const spec = parseFactory(`IVF${NLIST}_HNSW32,Flat`);
    if (spec.kind !== 'ivf-flat') throw new Error('unexpected spec');
    const { centroids } = trainIvf(spec, data, DIM, metric, TRAIN);

    it('agrees with exact assignment on at least 98% of the vectors at efSearch 16', () => {
      const exact = new CentroidAssigner(centroids, DIM, metric, 1);
      const graph = new CentroidGraph(centroids, DIM, metric, { m: 32, threads: 1 });
      try {
        expect(agreement(graph.assign(data), exact.assign(data))).toBeGreaterThanOrEqual(0.98);
      } finally {
        exact.close();
      }
    });

    it('is deterministic: any threads, any chunks, a graph built again', () => {
      const one = new CentroidGraph(centroids, DIM, metric, { m: 32, threads: 1 }).assign(data);
      const two = new CentroidGraph(centroids, DIM, metric, { m: 32, threads: 2 });
      expect(two.assign(data)).toEqual(one);
      const chunked = new Int32Array(N);
      for (let at = 0; at < N; at += 3001)
        chunked.set(two.assign(data.subarray(at * DIM, Math.min(N, at + 3001) * DIM)), at);
      expect(chunked).toEqual(one);
      two.setCentroids(centroids);
      expect(two.assign(data)).toEqual(one);
    });

    it('builds an index whose recall@10 is within 0.02 of the exact-assignment one', () => {
      const queries = clusteredVectors(100, DIM, 2000, 11 + 100);
      const truth = exactTopK(data, queries, DIM, K, metric);
      const found = (factory: string) => {
        const index = trainAndAdd(factory, data, DIM, metric, TRAIN) as IvfIndex;
        expect(index.factory).toBe(factory);
        return recall(index.search(queries, K, { nprobe: 8 }), truth, K);
      };
      const exact = found(`IVF${NLIST},Flat`);
      const graph = found(`IVF${NLIST}_HNSW32,Flat`);
      expect(exact).toBeGreaterThan(0.4);
      expect(graph).toBeGreaterThanOrEqual(exact - 0.02);
    });
  },
);
