/**
 * The `LSR` engine (search and score): learned sparse retrieval over an index built by
 * irserve-build-sparse-index. Queries are encoded by a SPLADE model (through TEI or in process)
 * or come pre-encoded in the request (`query_vector`); every search strategy returns the same
 * top k as exhaustive scoring; passages group into documents by MaxP.
 */
import { join, resolve } from 'node:path';
import {
  ArrayFileError,
  BaseEngine,
  IrserveError,
  parseByteSize,
  badRequest,
  filesIdentity,
  requestedSubset,
  type BatchOptions,
  type EmbedRequest,
  type EngineInit,
  type IndexedSparseVector,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
} from 'irserve/plugin';
import type { SparseEncoder, SparseVector } from '../encoders/types.js';
import { missingTokens } from '../encoders/vocabulary.js';
import { MANIFEST_FILE } from '../index/manifest.js';
import { defaultBoundsThreads } from '../search/bmp/split-bounds.js';
import { queryTerms } from '../search/query-terms.js';
import { lsrConfigSchema, lsrModels, parseLsrConfig, type LsrConfig } from './config.js';
import { createEncoder } from './create-encoder.js';
import { maxP } from './maxp.js';
import { openLsr, type OpenedLsr } from './opened.js';
import { requestVector } from './query-vector.js';
import { sparseScore } from './sparse-score.js';

export class LSR extends BaseEngine {
  /** The zod schema of `config` (the config file's JSON Schema is generated from it). */
  static readonly configSchema = lsrConfigSchema;
  static readonly models = (config: Record<string, unknown>) => lsrModels(parseLsrConfig(config));
  readonly settings: LsrConfig;
  #ready: Promise<{ opened: OpenedLsr; encoder: SparseEncoder | undefined }> | undefined;
  #ids: Promise<Map<string, number>> | undefined;
  /** Set when the background checks find the index damaged: every request is refused then. */
  #damage: IrserveError | undefined;
  #prepared = false;
  /** The index once opened (for `/health`). */
  #opened: OpenedLsr | undefined;
  /** Stops the background checks when the service closes before they end. */
  #closing = new AbortController();

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseLsrConfig(init.config);
  }

  /** Scoring encodes the passages: not without an encoder (`encoder: "none"`). */
  override get canScore(): boolean {
    return this.settings.encoder !== 'none';
  }

  /** Embedding encodes the texts: not without an encoder (`encoder: "none"`). */
  override get canEmbedSparse(): boolean {
    return this.settings.encoder !== 'none';
  }

  /** Opens the index, starts the encoder and checks their vocabularies agree. */
  async start(): Promise<void> {
    const { opened, encoder } = await this.#open();
    this.context.logger.info(
      {
        passages: opened.manifest.passages,
        documents: opened.manifest.documents,
        vocabulary: opened.manifest.vocabularySize,
        quantization: opened.manifest.quantization,
        encoder: encoder?.description ?? 'none (requests bring query_vector)',
        storage: opened.storage,
        resident_bytes: opened.residentBytes(),
        ...(opened.paged ? { paged_search: opened.paged.search } : {}),
      },
      openedMessage(opened, this.settings.search),
    );
    if (opened.paged?.note !== undefined) this.context.logger.warn(opened.paged.note);
  }

  /** Logs when the background checks end; a damaged index takes the service out of use. */
  #watchPreparation(opened: OpenedLsr, closing: AbortSignal): void {
    const started = performance.now();
    opened.prepared.then(
      () => {
        this.#prepared = true;
        if (opened.paged?.search === 'exhaustive') return;
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        this.context.logger.info(
          {
            search: this.settings.search,
            seconds,
            resident_bytes: opened.residentBytes(),
          },
          opened.paged
            ? 'sparse index prepared: block bounds derived from the files, bmp serving from them'
            : 'sparse index prepared: all in memory, checksums checked, search bounds ready',
        );
      },
      (error: unknown) => {
        if (closing.aborted) return; // closed before the checks ended: not damage
        this.#damage = new IrserveError(
          'ERR_ENGINE',
          `service "${this.name}": ${(error as Error).message}; the service refuses requests until restarted with a sound index`,
        );
        this.context.logger.error({ err: error }, 'sparse index damaged');
      },
    );
  }

  /**
   * Whether the index is checked and the search bounds derived (`prepare: background`); a
   * damaged index takes the service down (it refuses every request).
   */
  health(): Record<string, unknown> {
    if (this.#damage) return { state: 'down', prepared: 'damaged' };
    const opened = this.#opened;
    return {
      state: 'up',
      prepared: this.#prepared ? 'ready' : 'in progress',
      ...(opened === undefined
        ? {}
        : {
            storage: opened.storage,
            resident_bytes: opened.residentBytes(),
            ...(opened.paged ? { paged_search: opened.paged.search } : {}),
          }),
      ...(this.settings.memory_budget === undefined
        ? {}
        : { memory_budget_bytes: this.#memoryBudget() }),
    };
  }

  #memoryBudget(): number | undefined {
    const budget = this.settings.memory_budget;
    return budget === undefined ? undefined : parseByteSize(budget);
  }

  /** A damaged page met while serving from the files takes the service out of use. */
  #checked<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof ArrayFileError) {
        this.#damage = new IrserveError(
          'ERR_ENGINE',
          `service "${this.name}": ${error.message}; the service refuses requests until restarted with a sound index`,
        );
        this.context.logger.error({ err: error }, 'sparse index damaged');
        throw this.#damage;
      }
      throw error;
    }
  }

  /**
   * What the answers depend on besides the config: the index's manifest (its files' checksums),
   * the ONNX model folder or TEI's vocabulary, and the subset mapping.
   */
  async cacheIdentity(): Promise<string> {
    await this.#open();
    const s = this.settings;
    const files = {
      index: join(s.index_path, MANIFEST_FILE),
      model: s.encoder === 'onnx' ? s.model_name : undefined,
      vocabulary: s.vocab_path,
      subsets: s.id_to_subset_mapping,
    };
    return filesIdentity(files, this.context.configDir);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#closing = new AbortController();
    const ready = this.#ready;
    this.#ready = undefined;
    this.#ids = undefined;
    this.#opened = undefined;
    const open = await ready?.catch(() => undefined);
    await open?.opened.close();
    await open?.encoder?.close();
  }

  #open() {
    this.#ready ??= (async () => {
      const closing = this.#closing.signal;
      const dir = this.context.configDir;
      const mapping = this.settings.id_to_subset_mapping;
      const opened = await openLsr(
        resolve(dir, this.settings.index_path),
        mapping === undefined ? undefined : resolve(dir, mapping),
        this.settings.search,
        this.settings.prepare,
        {
          signal: closing,
          memoryBudget: this.#memoryBudget(),
          threads: {
            threads: this.settings.threads ?? defaultBoundsThreads(),
            log: (line) => this.context.logger.warn(line),
          },
        },
      ).catch((error: unknown) => {
        if (error instanceof IrserveError) throw error;
        throw new IrserveError('ERR_CONFIG', `service "${this.name}": ${(error as Error).message}`);
      });
      this.#opened = opened;
      this.#watchPreparation(opened, closing);
      const encoder = await createEncoder(this.settings, this.name, this.context);
      if (encoder && this.settings.check_vocabulary) await this.#checkVocabulary(opened, encoder);
      return { opened, encoder };
    })();
    return this.#ready;
  }

  async #checkVocabulary(opened: OpenedLsr, encoder: SparseEncoder): Promise<void> {
    const missing = missingTokens(opened.head.terms, await encoder.vocabulary());
    if (missing.length === 0) return;
    const examples = missing
      .slice(0, 5)
      .map((token) => JSON.stringify(token))
      .join(', ');
    await encoder.close();
    throw new IrserveError(
      'ERR_CONFIG',
      `service "${this.name}": ${missing.length} of the index's ${opened.head.terms.length} tokens (${examples}) are not in the vocabulary of ${encoder.description}: the index was encoded with another model (set check_vocabulary false to serve it anyway)`,
    );
  }

  async searchBatch(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]> {
    const { opened, encoder } = await this.#open();
    if (this.#damage) throw this.#damage;
    const wanted = requests.map((request) => {
      if (!Number.isInteger(request.limit) || request.limit < 1)
        throw badRequest('limit: must be a positive integer');
      return requestedSubset(this.name, opened.subsets, request.subset);
    });
    const vectors = await this.#queryVectors(requests, encoder, options);
    return requests.map((request, i) => {
      const query = queryTerms(opened.lookup, vectors[i]!, opened.head.quantization);
      const k = Math.min(opened.head.passages, Math.ceil(request.limit * this.settings.k_scale));
      const filter =
        wanted[i] === undefined ? undefined : { labels: opened.passageLabels!, wanted: wanted[i] };
      const hits = this.#checked(() => opened.search(query, { k, filter }));
      return maxP(opened.head, hits, request.limit);
    });
  }

  /** Scores passages by encoding them with the same model (document side). */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    const { opened, encoder } = await this.#open();
    if (this.#damage) throw this.#damage;
    if (!encoder)
      throw badRequest(
        `service "${this.name}" has no encoder (config.encoder is "none"), so it cannot encode passages to score`,
      );
    const queries = await this.#queryVectors(requests, encoder, options);
    const texts = requests.flatMap((request) =>
      request.passages.map((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: the LSR engine scores text passages`);
        return passage;
      }),
    );
    const passages = await this.#encode(encoder, texts, 'passage', options);
    let next = 0;
    return requests.map((request, i) =>
      request.passages.map(() =>
        sparseScore(queries[i]!, passages[next++]!, opened.head.quantization),
      ),
    );
  }

  /**
   * The `embed_sparse` capability (TEI's `/embed_sparse` route): texts encoded by the service's
   * SPLADE model, queries and passages each with their own settings, as vocabulary indices and
   * the model's weights (not the index's integer impacts), in index order.
   */
  async embedSparseBatch(
    requests: EmbedRequest[],
    options?: BatchOptions,
  ): Promise<IndexedSparseVector[]> {
    const { encoder } = await this.#open();
    if (!encoder)
      throw badRequest(
        `service "${this.name}" has no encoder (config.encoder is "none"), so it cannot embed texts`,
      );
    const ids = await this.#tokenIds(encoder);
    const out: IndexedSparseVector[] = new Array<IndexedSparseVector>(requests.length);
    for (const kind of ['query', 'passage'] as const) {
      const positions = requests.flatMap((request, i) => (request.kind === kind ? [i] : []));
      if (positions.length === 0) continue;
      const vectors = await this.#encode(
        encoder,
        positions.map((i) => requests[i]!.text),
        kind,
        options,
      );
      positions.forEach((position, j) => (out[position] = indexed(vectors[j]!, ids)));
    }
    return out;
  }

  /** The encoder's token to vocabulary index, read once. */
  #tokenIds(encoder: SparseEncoder): Promise<Map<string, number>> {
    this.#ids ??= encoder
      .vocabulary()
      .then((vocabulary) => new Map(vocabulary.map((token, id) => [token, id])));
    return this.#ids;
  }

  /** Each request's `query_vector`, or its query encoded (the batch's distinct queries at once). */
  async #queryVectors(
    requests: { query: string; [field: string]: unknown }[],
    encoder: SparseEncoder | undefined,
    options: BatchOptions | undefined,
  ): Promise<SparseVector[]> {
    // A blank query without query_vector has nothing to search with: an empty vector, so it
    // finds nothing, as on every engine (docs/sparse.md).
    const given = requests.map(
      (request) => requestVector(request) ?? (request.query.trim() === '' ? {} : undefined),
    );
    const texts = [...new Set(requests.filter((_, i) => !given[i]).map((r) => r.query))];
    if (texts.length > 0 && !encoder)
      throw badRequest(
        `query_vector: required, service "${this.name}" has no query encoder (config.encoder is "none")`,
      );
    const encoded = new Map<string, SparseVector>();
    if (texts.length > 0) {
      const vectors = await this.#encode(encoder!, texts, 'query', options);
      texts.forEach((text, i) => encoded.set(text, vectors[i]!));
    }
    return requests.map((request, i) => given[i] ?? encoded.get(request.query)!);
  }

  /** Encodes in calls of at most `batch_size` texts. */
  async #encode(
    encoder: SparseEncoder,
    texts: string[],
    kind: 'query' | 'passage',
    options?: BatchOptions,
  ) {
    const out: SparseVector[] = [];
    const size = this.settings.batch_size;
    for (let start = 0; start < texts.length; start += size)
      out.push(...(await encoder.encode(texts.slice(start, start + size), kind, options)));
    return out;
  }
}

/** The start log's message: where the index is served from, and how it is searched there. */
function openedMessage(opened: OpenedLsr, search: string): string {
  if (opened.paged === undefined) return 'sparse index opened';
  const how =
    opened.paged.search === 'bmp'
      ? `search "${search}" prunes with block bounds derived from the files (exhaustive until they are ready)`
      : 'every strategy exhaustive';
  return `sparse index opened: served from its files (it needs more than config.memory_budget), ${how}`;
}

/** A `token -> weight` vector as vocabulary indices in increasing order (tokens not in it dropped). */
function indexed(vector: SparseVector, ids: Map<string, number>): IndexedSparseVector {
  const pairs = Object.entries(vector)
    .flatMap(([token, weight]) => {
      const id = ids.get(token);
      return id === undefined ? [] : [[id, weight] as const];
    })
    .sort((a, b) => a[0] - b[0]);
  return { indices: pairs.map(([id]) => id), values: pairs.map(([, weight]) => weight) };
}

/** The same engine under a name that says what it is. */
export class Sparse extends LSR {}
