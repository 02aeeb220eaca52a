import { Index, MetricKind, ScalarKind } from 'usearch';
import type { HnswQuantization } from './factory.js';
import { sq8ExtraDims, sq8MapQueries, sq8Score } from './sq8.js';
import {
  checkQueries,
  emptyResult,
  type Metric,
  type SearchResult,
  type VectorIndex,
} from './types.js';
import { fromMatches, usearchMetric } from './usearch-results.js';

/** faiss's IndexHNSW defaults, so `HNSW32` means the same graph quality as in faiss. */
export const HNSW_DEFAULTS = { efConstruction: 40, efSearch: 16 } as const;

export interface HnswParams {
  dim: number;
  metric: Metric;
  m: number;
  quantization: HnswQuantization;
  efConstruction: number;
  efSearch: number;
  /** SQ8: the norm M of the cosine mapping (see sq8.ts); 0 otherwise. */
  sq8Norm: number;
  factory: string;
}

/** Creates the empty usearch graph for `params`, searching with `efSearch`. */
export function createUsearchIndex(params: HnswParams, efSearch = params.efSearch): Index {
  const quantization = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 }[
    params.quantization
  ];
  return new Index({
    dimensions: params.dim + (params.quantization === 'i8' ? sq8ExtraDims(params.metric) : 0),
    // SQ8 maps both metrics to cosine (sq8.ts), which usearch's int8 ip computes.
    metric: params.quantization === 'i8' ? MetricKind.IP : usearchMetric(params.metric),
    quantization,
    connectivity: params.m,
    expansion_add: params.efConstruction,
    expansion_search: efSearch,
    multi: false,
  });
}

/**
 * An HNSW graph in usearch (SIMD, multi-threaded batch search). Keys are vector positions.
 * usearch fixes `efSearch` when an index object is made, so another `efSearch` is served by a
 * memory-mapped view of the saved file made once per value; an index never saved (built in
 * memory) serves only its own.
 */
export class HnswIndex implements VectorIndex {
  readonly dim: number;
  readonly metric: Metric;
  readonly count: number;
  readonly factory: string;
  readonly params: HnswParams;
  /** Whether the graph is a memory-mapped view of its file (under a memory budget). */
  readonly mapped: boolean;
  readonly #index: Index;
  readonly #threads: number;
  readonly #views = new Map<number, Index>();
  #path: string | undefined;

  constructor(
    index: Index,
    params: HnswParams,
    options: { threads?: number; path?: string; mapped?: boolean } = {},
  ) {
    this.#index = index;
    this.mapped = options.mapped ?? false;
    this.params = params;
    this.dim = params.dim;
    this.metric = params.metric;
    this.factory = params.factory;
    this.count = index.size();
    this.#threads = options.threads ?? 0;
    this.#path = options.path;
  }

  /** Writes the graph to `path`; later `efSearch` overrides view that file. */
  save(path: string): void {
    this.#index.save(path);
    this.#path = path;
  }

  search(queries: Float32Array, k: number, options: { efSearch?: number } = {}): SearchResult {
    const n = checkQueries(queries, this.dim, k);
    if (n === 0 || this.count === 0) return emptyResult(n, k);
    const index = this.#indexFor(options.efSearch);
    if (this.params.quantization === 'i8') {
      const { metric, sq8Norm } = this.params;
      const { mapped, qnorm2 } = sq8MapQueries(queries, this.dim, metric);
      const matches = index.search(mapped, k, this.#threads);
      return fromMatches(matches, n, k, k, (d, q) => sq8Score(d, qnorm2[q]!, metric, sq8Norm));
    }
    const matches = index.search(queries, k, this.#threads);
    return fromMatches(matches, n, k, k, this.metric === 'ip' ? (d) => 1 - d : (d) => -d);
  }

  #indexFor(efSearch: number | undefined): Index {
    if (efSearch === undefined || efSearch === this.params.efSearch) return this.#index;
    if (!Number.isInteger(efSearch) || efSearch < 1) {
      throw new RangeError(`efSearch must be a positive integer, got ${efSearch}`);
    }
    const cached = this.#views.get(efSearch);
    if (cached) return cached;
    if (this.#path === undefined) {
      throw new Error(
        `efSearch ${efSearch} differs from this in-memory index's ${this.params.efSearch}; ` +
          'save the index (or open it from disk) to search with another efSearch',
      );
    }
    const view = createUsearchIndex(this.params, efSearch);
    view.view(this.#path);
    this.#views.set(efSearch, view);
    return view;
  }
}
