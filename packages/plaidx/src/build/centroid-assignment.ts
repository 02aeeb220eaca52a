/**
 * How the builder finds each token's nearest centroid (k-means, the held-out tokens, the
 * encoding pass): exactly, by comparing it with every centroid (the default, as ColBERT
 * does), or, with `centroidGraph`, by searching an HNSW graph over the centroids, as the dense
 * builder's `IVF<n>_HNSW<M>` does. The graph is built on one thread in centroid order and a
 * search depends only on the graph and its token, so the codes are the same with any number
 * of threads and any split of the corpus into shards or memory-bounded passes.
 */
import { CentroidAssigner, CentroidGraph, type NearestCentroid } from '@irserve/dense';

export interface CentroidGraphSettings {
  /** Links per centroid (HNSW's M; the M of the dense builder's `IVF<n>_HNSW<M>`). */
  m: number;
  /** Search breadth (default {@link DEFAULT_GRAPH_EF}). */
  efSearch?: number;
}

/** Search breadth of the centroid graph when none is given (see docs/plaidx.md). */
export const DEFAULT_GRAPH_EF = 32;

/** The range of HNSW's M the dense builder accepts for `IVF<n>_HNSW<M>` too. */
const M_RANGE = [2, 512] as const;
const EF_RANGE = [1, 4096] as const;

/** Throws an Error naming the flag unless M and efSearch are whole numbers in range. */
export function checkCentroidGraph(graph: CentroidGraphSettings): Required<CentroidGraphSettings> {
  const { m, efSearch = DEFAULT_GRAPH_EF } = graph;
  if (!Number.isInteger(m) || m < M_RANGE[0] || m > M_RANGE[1])
    throw new Error(
      `--centroid_graph must be an integer from ${M_RANGE[0]} to ${M_RANGE[1]} (HNSW links per centroid, e.g. 32), got ${m}`,
    );
  if (!Number.isInteger(efSearch) || efSearch < EF_RANGE[0] || efSearch > EF_RANGE[1])
    throw new Error(
      `--centroid_graph_ef must be an integer from ${EF_RANGE[0]} to ${EF_RANGE[1]}, got ${efSearch}`,
    );
  return { m, efSearch };
}

/**
 * The assigner over `centroids`: the graph when `graph` is given, else the exact comparison
 * (`threads` 0: every core). Close it when done.
 */
export function tokenAssigner(
  centroids: Float32Array,
  dim: number,
  metric: 'ip' | 'l2',
  threads: number,
  graph: CentroidGraphSettings | undefined,
): NearestCentroid {
  if (!graph) return new CentroidAssigner(centroids, dim, metric, threads);
  const { m, efSearch } = checkCentroidGraph(graph);
  return new CentroidGraph(centroids, dim, metric, { m, efSearch, threads });
}

/** Assigns `data` once (see {@link tokenAssigner}). */
export function assignTokens(
  centroids: Float32Array,
  data: Float32Array,
  dim: number,
  threads: number,
  graph: CentroidGraphSettings | undefined,
): Int32Array {
  if (data.length === 0) return new Int32Array(0);
  const assigner = tokenAssigner(centroids, dim, 'ip', threads, graph);
  try {
    return assigner.assign(data);
  } finally {
    assigner.close();
  }
}

/** How codes were assigned, as `metadata.json`'s config records it (absent: exactly). */
export function assignmentLabel(graph: CentroidGraphSettings | undefined): string | undefined {
  if (!graph) return undefined;
  const { m, efSearch } = checkCentroidGraph(graph);
  return `hnsw (M ${m}, efSearch ${efSearch})`;
}
