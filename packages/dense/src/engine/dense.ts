/**
 * The `Dense` engine (search and score roles): queries are embedded through an
 * OpenAI-compatible embeddings API or a local ONNX model (`encoder`), once per processor batch,
 * and searched in a vector index built by irserve-build-index or written by Python faiss
 * (RoutIR's `index.faiss`).
 */
import { join, resolve } from 'node:path';
import type { ZodType } from 'zod';
import {
  BaseEngine,
  IrserveError,
  badRequest,
  filesIdentity,
  readSubsetMapping,
  requestedSubset,
  searchNonBlank,
  subsetLabels,
  type BatchOptions,
  type EngineInit,
  type ModelRequest,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
  type SubsetLabels,
} from 'irserve/plugin';
import { openIndex, type VectorIndex } from '../vector-index/index.js';
import { MANIFEST_FILE } from '../vector-index/manifest.js';
import { indexStorage, memoryBudgetBytes } from './index-storage.js';
import { apiEmbedder } from './api-embedder.js';
import { denseConfigSchema, parseDenseConfig, promptsOf, type DenseConfig } from './config.js';
import type { Embedder } from './embedder.js';
import { encoderModel } from './encoder-config.js';
import { embeddingRequests, type EmbeddingRequest } from './embedding-request.js';
import { localEmbedder } from './local-embedder.js';
import { cosine, innerProduct, normalizeInPlace, packRows } from './vectors.js';

/** For engines built on Dense with embeddings of their own (the gpu extra's GGUF models). */
export interface DenseOptions {
  /** Settings a subclass validated with its own schema (its config has fields Dense lacks). */
  settings?: DenseConfig;
  /** Where embeddings come from, instead of `embedding_base_url` or `encoder`. */
  embedder?: () => Promise<Embedder>;
}

interface Ready {
  index: VectorIndex;
  ids: string[];
  /** How a graph served in place was verified at start (open.ts). */
  verified: string | undefined;
  subsets: SubsetLabels | undefined;
  embedder: Embedder;
}

export class Dense extends BaseEngine {
  /** The config's zod schema (the config JSON Schema is generated from it). */
  static readonly configSchema: ZodType = denseConfigSchema;
  /** The local model of `encoder`, for `irserve pull` (none with an embeddings API). */
  static models(config: Record<string, unknown>): ModelRequest[] {
    const { encoder } = parseDenseConfig(config);
    return encoder ? [encoderModel(encoder)] : [];
  }
  readonly settings: DenseConfig;
  #prompts: { query: string; passage: string };
  readonly #makeEmbedder: (() => Promise<Embedder>) | undefined;
  #ready: Promise<Ready> | undefined;
  /** What `#ready` resolved to, once it has (for `/health`, which does not wait). */
  #opened: Ready | undefined;

  constructor(init: EngineInit, options: DenseOptions = {}) {
    super(init);
    this.settings = options.settings ?? parseDenseConfig(init.config);
    this.#makeEmbedder = options.embedder;
    this.#prompts = promptsOf(this.settings);
  }

  /** Opens the index, the subset mapping and the encoder before the server accepts requests. */
  async start(): Promise<void> {
    const { index, embedder, verified } = await this.#open();
    this.context.logger.info(
      {
        count: index.count,
        dim: index.dim,
        factory: index.factory,
        embedder: embedder.label,
        ...indexStorage(index, memoryBudgetBytes(this.settings.memory_budget), verified),
      },
      'dense index opened',
    );
  }

  /**
   * For `/health`: where the vectors are (`memory`, `paged` or `mapped`), how much of them is
   * resident, and how a mapped graph was verified at start.
   */
  health(): Record<string, unknown> {
    const opened = this.#opened;
    if (opened === undefined) return { state: 'up', index: 'loading' };
    const budget = memoryBudgetBytes(this.settings.memory_budget);
    return { state: 'up', index: 'ready', ...indexStorage(opened.index, budget, opened.verified) };
  }

  /**
   * What the answers depend on besides the config: the index's manifest (its files' sha256),
   * the local model (an API's model is named in the config) and the subset mapping.
   */
  async cacheIdentity(): Promise<string> {
    const { embedder } = await this.#open();
    const files = {
      index: join(this.settings.index_path, MANIFEST_FILE),
      model: embedder.modelPath,
      subsets: this.settings.id_to_subset_mapping,
    };
    return filesIdentity(files, this.context.configDir);
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    const opened = await ready?.catch(() => undefined);
    this.#opened = undefined;
    opened?.index.close?.();
    opened?.index.rows?.close?.();
    await opened?.embedder.close();
  }

  #open(): Promise<Ready> {
    this.#ready ??= this.#load();
    return this.#ready;
  }

  async #load(): Promise<Ready> {
    const path = resolve(this.context.configDir, this.settings.index_path);
    const { index, ids, verified } = await openIndex(path, {
      threads: this.settings.threads,
      memoryBudget: memoryBudgetBytes(this.settings.memory_budget),
      warn: (message) => this.context.logger.warn(message),
    });
    const mapping = this.settings.id_to_subset_mapping;
    const subsets =
      mapping === undefined
        ? undefined
        : subsetLabels(ids, await readSubsetMapping(resolve(this.context.configDir, mapping)));
    const embedder = this.#makeEmbedder
      ? await this.#makeEmbedder()
      : this.settings.encoder
        ? await localEmbedder(this.settings.encoder, this.context)
        : apiEmbedder(this.settings, this.name, this.context.logger);
    if (embedder.dimension !== undefined && embedder.dimension !== index.dim) {
      await embedder.close();
      index.close?.();
      throw new IrserveError(
        'ERR_CONFIG',
        `service "${this.name}": ${embedder.label} makes ${embedder.dimension}-dimensional vectors, but the index at ${this.settings.index_path} holds ${index.dim}-dimensional ones`,
      );
    }
    if (embedder.prefixes) this.#prompts = promptsOf(this.settings, embedder.prefixes);
    this.#opened = { index, ids, verified, subsets, embedder };
    return this.#opened;
  }

  /**
   * The embedding capability: one vector per request, with the query or passage prompt by
   * `kind` (and `normalize_query` for queries), exactly as search and score embed.
   *
   * @example
   * const [q, p] = await dense.embedBatch([{ text: 'cats', kind: 'query' }, { text: 'A cat...', kind: 'passage' }]);
   */
  async embedBatch(requests: EmbeddingRequest[], options?: BatchOptions): Promise<Float32Array[]> {
    const checked = embeddingRequests(requests);
    await this.#open(); // the model's prompts are known once it is loaded
    const vectors = await this.#embed(
      checked.map(({ text, kind }) =>
        kind === 'query'
          ? fill(this.#prompts.query, '{query}', text)
          : fill(this.#prompts.passage, '{passage}', text),
      ),
      options,
    );
    if (this.settings.normalize_query)
      checked.forEach(({ kind }, i) => kind === 'query' && normalizeInPlace(vectors[i]!));
    return vectors;
  }

  /**
   * The nearest documents of each query. A blank query, or one whose vector is zero, has
   * nothing to search with and finds nothing (`{}`), as on every engine (docs/errors.md).
   */
  async searchBatch(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]> {
    const ready = await this.#open();
    for (const request of requests) {
      if (!Number.isInteger(request.limit) || request.limit < 1)
        throw badRequest('limit: must be a positive integer');
      requestedSubset(this.name, ready.subsets, request.subset);
    }
    return searchNonBlank(requests, (asked) => this.#nearest(asked, ready, options));
  }

  async #nearest(requests: SearchRequest[], ready: Ready, options?: BatchOptions) {
    const vectors = await this.#embed(
      requests.map((request) => fill(this.#prompts.query, '{query}', request.query)),
      options,
    );
    if (this.settings.normalize_query) vectors.forEach(normalizeInPlace);
    this.#checkDimension(vectors, ready);
    const rows = vectors.flatMap((vector, i) => (vector.some((x) => x !== 0) ? [i] : []));
    const results = requests.map(() => Object.create(null) as Scores);
    if (rows.length === 0) return results;
    const depth = rows.map((i) =>
      Math.min(ready.index.count, this.#candidates(requests[i]!.limit)),
    );
    const k = Math.max(1, ...depth);
    const found = ready.index.search(
      packRows(
        rows.map((i) => vectors[i]!),
        ready.index.dim,
      ),
      k,
      {
        ...(this.settings.nprobe ? { nprobe: this.settings.nprobe } : {}),
        ...(this.settings.ef_search ? { efSearch: this.settings.ef_search } : {}),
      },
    );
    rows.forEach((i, row) => {
      const hits = { from: row * k, to: row * k + depth[row]!, ...found };
      const subset = requestedSubset(this.name, ready.subsets, requests[i]!.subset);
      results[i] = ranking(ready, hits, requests[i]!.limit, subset);
    });
    return results;
  }

  /** Embeds the query and every passage of the batch in one call; scores by `score_metric`. */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    await this.#open(); // the model's prompts are known once it is loaded
    const texts: string[] = [];
    for (const request of requests) {
      texts.push(fill(this.#prompts.query, '{query}', request.query));
      request.passages.forEach((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: the Dense engine scores text passages`);
        texts.push(fill(this.#prompts.passage, '{passage}', passage));
      });
    }
    const vectors = await this.#embed(texts, options);
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
  async #embed(texts: string[], options?: BatchOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { embedder } = await this.#open();
    const unique = [...new Set(texts)];
    const vectors = await embedder.embed(unique, options);
    const byText = new Map(unique.map((text, i) => [text, vectors[i]!]));
    // Copies, so normalising a repeated query's vector never scales it twice.
    return texts.map((text) => Float32Array.from(byText.get(text)!));
  }

  #checkDimension(vectors: Float32Array[], ready: Ready): void {
    const wrong = vectors.find((vector) => vector.length !== ready.index.dim);
    if (wrong)
      throw new IrserveError(
        'ERR_ENGINE',
        `service "${this.name}": ${ready.embedder.label} returned ${wrong.length}-dimensional vectors, but the index at ${this.settings.index_path} holds ${ready.index.dim}-dimensional ones`,
      );
  }
}

/**
 * The first `limit` documents of one query's hits (`labels` and `scores` at `[from, to)`), in
 * the wanted subset; a document with several vectors (passages) counts once, at its best.
 */
function ranking(
  ready: Ready,
  hits: { labels: ArrayLike<number>; scores: ArrayLike<number>; from: number; to: number },
  limit: number,
  subset: number | undefined,
): Scores {
  const out: Scores = Object.create(null) as Scores;
  let kept = 0;
  for (let j = hits.from; j < hits.to && kept < limit; j++) {
    const position = hits.labels[j]!;
    if (position < 0) break;
    if (subset !== undefined && ready.subsets?.labels[position] !== subset) continue;
    const id = ready.ids[position]!;
    if (Object.hasOwn(out, id)) continue;
    out[id] = hits.scores[j]!;
    kept++;
  }
  return out;
}

/** Replaces every `{placeholder}` in `template` with `value` (values are never re-scanned). */
function fill(template: string, placeholder: string, value: string): string {
  return template.split(placeholder).join(value);
}
