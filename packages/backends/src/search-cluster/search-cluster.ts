/**
 * The `OpenSearch` and `Elasticsearch` engines (search and score roles) over an index of a
 * cluster, through the official clients: BM25 `match` / `multi_match` over configured fields,
 * or the `knn` query with the query embedded by an irserve embedder. A processor batch is one
 * `_msearch` call. The index's own hybrid search is left to irserve's fusion: declare a BM25
 * and a kNN service over the same index and fuse them in a pipeline (`{os-bm25, os-knn}RRF`).
 */
import {
  badRequest,
  type BatchOptions,
  type Collection,
  type EngineInit,
  type LookupOptions,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
  searchNonBlank,
} from 'irserve/plugin';
import { BackendEngine } from '../common/backend-engine.js';
import { secretFrom } from '../common/config.js';
import { searchRequests, type CheckedSearch } from '../common/requests.js';
import { similarity } from '../common/similarity.js';
import { backendCollection } from '../common/text-collection.js';
import { clusterClient, type ClusterClient, type Hit } from './cluster-client.js';
import { clusterConfigSchema, parseClusterConfig, type ClusterConfig } from './config.js';
import { bm25Body, byIdFieldBody, knnBody, type Flavor } from './query-body.js';

abstract class SearchCluster extends BackendEngine<ClusterClient> {
  static readonly configSchema = clusterConfigSchema;
  readonly settings: ClusterConfig;
  /** A getter, not a field: the constructor reads it before subclass fields exist. */
  abstract get flavor(): Flavor;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseClusterConfig(init.config);
    const password = secretFrom(undefined, this.settings.password_env);
    const apiKey = secretFrom(undefined, this.settings.api_key_env);
    const nodes = [this.settings.node].flat().map((node) => new URL(node).host);
    this.attach({
      address: `${this.backendName} at ${nodes.join(', ')} (index ${this.settings.index})`,
      secrets: [password, apiKey],
      embedding: this.settings.embedding,
      reconnectMaxWait: this.settings.reconnect_max_wait,
      connect: async () =>
        clusterClient(this.flavor, this.settings, {
          username: this.settings.username,
          password,
          apiKey,
        }),
      check: (client) => client.check(this.settings.index),
      release: (client) => client.close(),
    });
  }

  get backendName(): string {
    return this.flavor === 'opensearch' ? 'OpenSearch' : 'Elasticsearch';
  }

  provideCollections(): Collection[] {
    const name = this.settings.collection;
    if (name === undefined) return [];
    const textField = this.settings.text_field ?? this.settings.fields[0]!.replace(/\^.*$/, '');
    return [
      backendCollection(name, {
        fingerprint: `${this.flavor}:${String(this.settings.node)}/${this.settings.index}`,
        get: async (id, options) => {
          const source = await this.#source(id, options);
          if (source === undefined) return undefined;
          const title =
            this.settings.title_field === undefined ? undefined : source[this.settings.title_field];
          return {
            id,
            text: stringOf(source[textField]),
            ...(title !== undefined && title !== null ? { title: stringOf(title) } : {}),
          };
        },
      }),
    ];
  }

  /** A blank query finds nothing without a round trip (docs/errors.md, "Empty queries"). */
  async searchBatch(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]> {
    const checked = searchRequests(requests, this.name, this.settings.subset_field);
    return searchNonBlank(checked, (asked) => this.#search(asked, options));
  }

  async #search(checked: CheckedSearch[], options?: BatchOptions): Promise<Scores[]> {
    const bodies = await this.#bodies(checked, options);
    const results = await this.call((client) =>
      client.msearch(this.settings.index, bodies, options),
    );
    return results.map((hits, i) => this.#scores(hits, checked[i]!.limit));
  }

  /** `knn` mode: query and passages embedded, scored with the field's similarity; `bm25` mode cannot score free text. */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    if (this.settings.mode !== 'knn')
      throw badRequest(
        `service "${this.name}": a ${this.backendName} BM25 service scores only documents of its index, not free text passages; use a knn service or a reranker for the score role`,
      );
    const texts = requests.map((request) =>
      request.passages.map((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: ${this.backendName} services score text passages`);
        return passage;
      }),
    );
    return similarity(this.embedder, requests, texts, this.settings.similarity, options);
  }

  async #bodies(
    checked: CheckedSearch[],
    options: BatchOptions | undefined,
  ): Promise<Record<string, unknown>[]> {
    if (this.settings.mode === 'bm25')
      return checked.map((request) => bm25Body(this.settings, request));
    const vectors = await this.embedder.embed(
      checked.map((r) => ({ text: r.query, kind: 'query' })),
      options,
    );
    return checked.map((request, i) =>
      knnBody(this.flavor, this.settings, {
        vector: vectors[i]!,
        k: Math.ceil(request.limit * this.settings.k_scale),
        limit: request.limit,
        subset: request.subset,
      }),
    );
  }

  #scores(hits: Hit[], limit: number): Scores {
    const scores: Scores = Object.create(null) as Scores;
    let kept = 0;
    for (const hit of hits) {
      const id =
        this.settings.id_field === undefined
          ? hit._id
          : stringOf(hit._source?.[this.settings.id_field]);
      if (kept >= limit || id === '' || Object.hasOwn(scores, id)) continue;
      scores[id] = hit._score ?? 0;
      kept++;
    }
    return scores;
  }

  async #source(id: string, options?: LookupOptions): Promise<Record<string, unknown> | undefined> {
    if (this.settings.id_field === undefined)
      return this.call((client) => client.getSource(this.settings.index, id, options));
    const [hits] = await this.call((client) =>
      client.msearch(this.settings.index, [byIdFieldBody(this.settings, id)], options),
    );
    return hits?.[0]?._source;
  }
}

function stringOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(stringOf).join('\n');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** An index of an OpenSearch cluster (k-NN plugin for `knn` mode). */
export class OpenSearch extends SearchCluster {
  get flavor(): Flavor {
    return 'opensearch';
  }
}

/** An index of an Elasticsearch cluster (8.x or 9.x; `dense_vector` for `knn` mode). */
export class Elasticsearch extends SearchCluster {
  get flavor(): Flavor {
    return 'elasticsearch';
  }
}
