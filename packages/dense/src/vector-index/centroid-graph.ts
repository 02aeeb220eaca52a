/**
 * Nearest-centroid assignment by an HNSW graph over the centroids, for `IVF<n>_HNSW<M>`
 * (faiss's IVF with an `IndexHNSWFlat` coarse quantizer): a vector is compared with a few
 * hundred centroids instead of all of them, which is what makes a build with thousands of
 * lists affordable on a CPU. Used by k-means training (the graph is rebuilt from the centroids
 * every iteration, as faiss's `Clustering::train` resets and refills its index) and by the adds.
 *
 * Deterministic: the graph is built on one thread in centroid order (usearch draws each node's
 * level from a generator that starts in the same state for every new index), and a search
 * depends only on the graph and its query, so any number of search threads, and any split of
 * the vectors into chunks, gives the same labels. This module loads usearch, which worker
 * threads cannot: the streamed build assigns on its main thread and hands labels to its workers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchMatches, Index, ScalarKind, type Matches } from 'usearch';
import { CentroidAssigner, type NearestCentroid } from './centroid-assigner.js';
import type { FactorySpec } from './factory.js';
import { HNSW_DEFAULTS } from './hnsw.js';
import type { Metric } from './types.js';
import { usearchMetric } from './usearch-results.js';

export interface CentroidGraphOptions {
  /** Links per node (the M of `IVF<n>_HNSW<M>`). */
  m: number;
  /** Search breadth; faiss's IndexHNSW default 16. */
  efSearch?: number;
  /** usearch search threads (0: all cores; at most the cores there are). */
  threads?: number;
}

export class CentroidGraph implements NearestCentroid {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly #options: Required<CentroidGraphOptions>;
  #index: Index;

  constructor(centroids: Float32Array, dim: number, metric: Metric, options: CentroidGraphOptions) {
    this.dim = dim;
    this.metric = metric;
    this.count = centroids.length / dim;
    const { m, efSearch = HNSW_DEFAULTS.efSearch, threads = 0 } = options;
    const cores = availableParallelism();
    this.#options = { m, efSearch, threads: threads > 0 ? Math.min(threads, cores) : cores };
    this.#index = this.#build(centroids);
  }

  setCentroids(centroids: Float32Array): void {
    if (centroids.length !== this.count * this.dim)
      throw new RangeError(`${centroids.length} floats for ${this.count} centroids of ${this.dim}`);
    this.#index = this.#build(centroids);
  }

  assign(data: Float32Array): Int32Array {
    const n = data.length / this.dim;
    const labels = new Int32Array(n);
    if (n === 0) return labels;
    const matches: Matches | BatchMatches = this.#index.search(data, 1, this.#options.threads);
    const counts = matches instanceof BatchMatches ? matches.counts : [BigInt(matches.keys.length)];
    for (let i = 0; i < n; i++) {
      // A graph search always reaches some node: no query comes back empty.
      if (counts[i] === 0n) throw new Error(`the centroid graph found nothing for row ${i}`);
      labels[i] = Number(matches.keys[i]);
    }
    return labels;
  }

  /** Nothing to stop: usearch's search threads live only for a call. */
  close(): void {}

  /**
   * A new graph of `centroids`, keyed by position, built on one thread in that order. usearch
   * gives an index built on one thread one search context only; to search on more, the graph
   * goes through a file into an index that reserves a context per core (loading is exact).
   */
  #build(centroids: Float32Array): Index {
    const { threads } = this.#options;
    const built = this.#empty();
    const keys = BigUint64Array.from({ length: this.count }, (_, i) => BigInt(i));
    built.add(keys, centroids.slice(), 1);
    if (threads === 1) return built;
    const dir = mkdtempSync(join(tmpdir(), 'irserve-centroid-graph-'));
    try {
      built.save(join(dir, 'graph'));
      const searched = this.#empty();
      searched.load(join(dir, 'graph'));
      return searched;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  #empty(): Index {
    return new Index({
      dimensions: this.dim,
      metric: usearchMetric(this.metric),
      quantization: ScalarKind.F32,
      connectivity: this.#options.m,
      expansion_add: HNSW_DEFAULTS.efConstruction,
      expansion_search: this.#options.efSearch,
      multi: false,
    });
  }
}

/**
 * The assigner an IVF spec builds with: a graph over the centroids for `IVF<n>_HNSW<M>`, an
 * exact comparison with every centroid otherwise.
 */
export function centroidAssigner(
  spec: Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>,
  centroids: Float32Array,
  dim: number,
  metric: Metric,
  threads: number,
): NearestCentroid {
  if (spec.quantizerM === undefined) return new CentroidAssigner(centroids, dim, metric, threads);
  return new CentroidGraph(centroids, dim, metric, { m: spec.quantizerM, threads });
}

/** Assigns `data` once with the spec's assigner (see {@link centroidAssigner}). */
export function assignWith(
  spec: Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>,
  centroids: Float32Array,
  data: Float32Array,
  dim: number,
  metric: Metric,
  threads: number,
): Int32Array {
  const assigner = centroidAssigner(spec, centroids, dim, metric, threads);
  try {
    return assigner.assign(data);
  } finally {
    assigner.close();
  }
}
