/**
 * The `Dense` engine (search and score roles): queries are embedded through an
 * OpenAI-compatible embeddings API, one call per processor batch, and searched in a vector
 * index built by irserve-build-index or written by Python faiss (RoutIR's `index.faiss`).
 */
import { resolve } from 'node:path';
import { OpenAIEmbeddingsClient } from 'irserve';
import {
  BaseEngine,
  IrserveError,
  badRequest,
  readSubsetMapping,
  requestedSubset,
  subsetLabels,
  type EngineInit,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
  type SubsetLabels,
} from 'irserve/plugin';
import { openIndex, type VectorIndex } from '../vector-index/index.js';
import { denseConfigSchema, parseDenseConfig, type DenseConfig } from './config.js';
import { cosine, innerProduct, normalizeInPlace, packRows } from './vectors.js';

interface Ready {
  index: VectorIndex;
  ids: string[];
  subsets: SubsetLabels | undefined;
}

export class Dense extends BaseEngine {
  static readonly configSchema = denseConfigSchema;
  readonly settings: DenseConfig;
  readonly #client: OpenAIEmbeddingsClient;
  #ready: Promise<Ready> | undefined;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseDenseConfig(init.config);
    const apiKey = this.settings.api_key ?? process.env[this.settings.api_key_env];
    this.#client = new OpenAIEmbeddingsClient({
      baseUrl: this.settings.embedding_base_url,
      model: this.settings.embedding_model_name,
      ...(apiKey ? { apiKey } : {}),
      ...(this.settings.dimensions ? { dimensions: this.settings.dimensions } : {}),
      timeoutMs: this.settings.timeout * 1000,
      retries: this.settings.retries,
      service: this.name,
      logger: this.context.logger,
    });
  }

  /** Opens the index (and the subset mapping) before the server accepts requests. */
  async start(): Promise<void> {
    const { index } = await this.#open();
    this.context.logger.info(
      { service: this.name, count: index.count, dim: index.dim, factory: index.factory },
      'dense index opened',
    );
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    (await ready?.catch(() => undefined))?.index.close?.();
    await this.#client.close();
  }

  #open(): Promise<Ready> {
    this.#ready ??= (async () => {
      const path = resolve(this.context.configDir, this.settings.index_path);
      const { index, ids } = await openIndex(path, { threads: this.settings.threads });
      const mapping = this.settings.id_to_subset_mapping;
      const subsets =
        mapping === undefined
          ? undefined
          : subsetLabels(ids, await readSubsetMapping(resolve(this.context.configDir, mapping)));
      return { index, ids, subsets };
    })();
    return this.#ready;
  }

  async searchBatch(requests: SearchRequest[]): Promise<Scores[]> {
    const ready = await this.#open();
    const wanted = requests.map((request) => {
      if (!Number.isInteger(request.limit) || request.limit < 1)
        throw badRequest('limit: must be a positive integer');
      return requestedSubset(this.name, ready.subsets, request.subset);
    });
    const vectors = await this.#embed(
      requests.map((request) => fill(this.settings.query_prompt, '{query}', request.query)),
    );
    if (this.settings.normalize_query) vectors.forEach(normalizeInPlace);
    this.#checkDimension(vectors, ready.index.dim);
    const depth = requests.map((r) => Math.min(ready.index.count, this.#candidates(r.limit)));
    const k = Math.max(1, ...depth);
    const { labels, scores } = ready.index.search(packRows(vectors, ready.index.dim), k, {
      ...(this.settings.nprobe ? { nprobe: this.settings.nprobe } : {}),
      ...(this.settings.ef_search ? { efSearch: this.settings.ef_search } : {}),
    });
    return requests.map((request, row) => {
      const ranking: Scores = Object.create(null) as Scores;
      let kept = 0;
      for (let j = row * k; j < row * k + depth[row]! && kept < request.limit; j++) {
        const position = labels[j]!;
        if (position < 0) break;
        const subset = wanted[row];
        if (subset !== undefined && ready.subsets?.labels[position] !== subset) continue;
        const id = ready.ids[position]!;
        // Several vectors may share a document id (passages): its best score counts.
        if (Object.hasOwn(ranking, id)) continue;
        ranking[id] = scores[j]!;
        kept++;
      }
      return ranking;
    });
  }

  /** Embeds the query and every passage of the batch in one call; scores by `score_metric`. */
  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    const texts: string[] = [];
    for (const request of requests) {
      texts.push(fill(this.settings.query_prompt, '{query}', request.query));
      request.passages.forEach((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: the Dense engine scores text passages`);
        texts.push(fill(this.settings.passage_prompt, '{passage}', passage));
      });
    }
    const vectors = await this.#embed(texts);
    const similarity = this.settings.score_metric === 'cosine' ? cosine : innerProduct;
    let next = 0;
    return requests.map((request) => {
      const query = vectors[next++]!;
      return request.passages.map(() => similarity(query, vectors[next++]!));
    });
  }

  #candidates(limit: number): number {
    return Math.ceil(limit * this.settings.k_scale);
  }

  /** One API call for the distinct texts of a batch; identical texts are embedded once. */
  async #embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const unique = [...new Set(texts)];
    const vectors = await this.#client.embed(unique);
    const byText = new Map(unique.map((text, i) => [text, vectors[i]!]));
    // Copies, so normalising a repeated query's vector never scales it twice.
    return texts.map((text) => Float32Array.from(byText.get(text)!));
  }

  #checkDimension(vectors: Float32Array[], dim: number): void {
    const wrong = vectors.find((vector) => vector.length !== dim);
    if (wrong)
      throw new IrserveError(
        'ERR_ENGINE',
        `service "${this.name}": the embedding model ${this.settings.embedding_model_name} returned ${wrong.length}-dimensional vectors, but the index at ${this.settings.index_path} holds ${dim}-dimensional ones`,
      );
  }
}

/** Replaces every `{placeholder}` in `template` with `value` (values are never re-scanned). */
function fill(template: string, placeholder: string, value: string): string {
  return template.split(placeholder).join(value);
}
