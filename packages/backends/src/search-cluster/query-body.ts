/**
 * Search bodies in the two clusters' documented wire formats. BM25 is the same `match` /
 * `multi_match` on both; the `knn` query differs: OpenSearch's k-NN plugin nests the field
 * (`{"knn": {"<field>": {"vector", "k"}}}`), Elasticsearch names it (`{"knn": {"field",
 * "query_vector", "k", "num_candidates"}}`). A subset becomes a `term` filter, inside the kNN
 * search so it filters before the top k are taken.
 */
import type { ClusterConfig } from './config.js';

export type Flavor = 'opensearch' | 'elasticsearch';

type Body = Record<string, unknown>;

function subsetFilter(config: ClusterConfig, subset: string | undefined): Body | undefined {
  if (subset === undefined || config.subset_field === undefined) return undefined;
  return { term: { [config.subset_field]: subset } };
}

function source(config: ClusterConfig): Body {
  return config.id_field === undefined ? { _source: false } : { _source: [config.id_field] };
}

/**
 * @example
 * bm25Body(config, { query: 'cat food', limit: 10 })
 * // { size: 10, _source: false, track_total_hits: false, query: { match: { text: { query: 'cat food', operator: 'or' } } } }
 */
export function bm25Body(
  config: ClusterConfig,
  request: { query: string; limit: number; subset?: string | undefined },
): Body {
  const [first] = config.fields;
  const match =
    config.fields.length === 1
      ? { match: { [first!]: { query: request.query, operator: config.operator } } }
      : {
          multi_match: {
            query: request.query,
            fields: config.fields,
            type: 'best_fields',
            operator: config.operator,
          },
        };
  const filter = subsetFilter(config, request.subset);
  return {
    size: request.limit,
    ...source(config),
    track_total_hits: false,
    query: filter === undefined ? match : { bool: { must: match, filter } },
  };
}

export function knnBody(
  flavor: Flavor,
  config: ClusterConfig,
  request: { vector: Float32Array; k: number; limit: number; subset?: string | undefined },
): Body {
  const vector = Array.from(request.vector, (x) => (Number.isFinite(x) ? x : 0));
  const filter = subsetFilter(config, request.subset);
  const knn =
    flavor === 'opensearch'
      ? { [config.vector_field]: { vector, k: request.k, ...(filter ? { filter } : {}) } }
      : {
          field: config.vector_field,
          query_vector: vector,
          k: request.k,
          num_candidates: Math.max(request.k, config.num_candidates ?? request.k * 2),
          ...(filter ? { filter } : {}),
        };
  return { size: request.limit, ...source(config), track_total_hits: false, query: { knn } };
}

/** The body fetching one document by id for the collection view when ids live in a source field. */
export function byIdFieldBody(config: ClusterConfig, id: string): Body {
  return { size: 1, query: { term: { [config.id_field!]: id } } };
}
