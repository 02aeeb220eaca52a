/**
 * The `PLAIDX` engine (search and score roles), RoutIR's flagship: PLAID search over a
 * ColBERT / PLAID-X index with MaxP from passages to documents and subsets, and exact MaxSim
 * scoring with sliding windows. Queries arrive as text (encoded by an HTTP ColBERT encoder)
 * or as pre-encoded token vectors in `query_vectors`.
 */
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FormatError } from '@irserve/dense';
import {
  ArrayFileError,
  BaseEngine,
  IrserveError,
  parseByteSize,
  badRequest,
  filesIdentity,
  isBlankQuery,
  requestedSubset,
  searchNonBlank,
  type BatchOptions,
  type EngineInit,
  type ModelRequest,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
  type SubsetLabels,
} from 'irserve/plugin';
import { MANIFEST_FILE } from '../index/manifest.js';
import { openPlaidIndex, type PlaidIndex } from '../index/plaid-index.js';
import { resolveDepth, type SearchDepth } from '../search/depth.js';
import { plaidSearch } from '../search/plaid-search.js';
import type { TokenMatrix } from '../search/query.js';
import {
  parsePlaidxConfig,
  plaidxConfigSchema,
  requestDepthSchema,
  type PlaidxConfig,
} from './config.js';
import { HttpTokenEncoder } from './http-encoder.js';
import { checkpointModel, onnxColbertEncoder } from './onnx-encoder.js';
import type { TokenEncoder } from './token-encoder.js';
import { maxP } from './maxp.js';
import { readPassageMapping } from './passage-mapping.js';
import { tokenRows } from './request-vectors.js';
import { scorePassages } from './score.js';
import { passageSubsets, subsetMask } from './subsets.js';

interface Ready {
  index: PlaidIndex | undefined;
  /** Document id of each passage (MaxP), when a passage mapping exists. */
  docOf: string[] | undefined;
  subsets: SubsetLabels | undefined;
  masks: Map<number, Uint8Array>;
}

interface Plan {
  limit: number;
  passages: number;
  depth: SearchDepth;
  mask: Uint8Array | undefined;
}

export class PLAIDX extends BaseEngine {
  /** The zod schema of `config` (for the config file's JSON Schema). */
  static readonly configSchema = plaidxConfigSchema;
  /** The ONNX ColBERT export of `checkpoint`, for `irserve pull`. */
  static models(config: Record<string, unknown>): ModelRequest[] {
    const { checkpoint } = parsePlaidxConfig(config);
    return checkpoint === undefined ? [] : [checkpointModel(checkpoint)];
  }
  readonly settings: PlaidxConfig;
  #encoder: TokenEncoder | undefined;
  #ready: Promise<Ready> | undefined;
  #index: PlaidIndex | undefined;
  /** Set when a page read from the files fails its checksum: the service refuses requests. */
  #damage: IrserveError | undefined;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parsePlaidxConfig(init.config);
    if (this.settings.checkpoint !== undefined && this.settings.encoder_url !== undefined)
      throw new IrserveError(
        'ERR_CONFIG',
        'config.checkpoint and config.encoder_url: set one encoder, not both',
      );
    if (this.settings.sliding_window_stride > this.settings.sliding_window_size)
      throw new IrserveError(
        'ERR_CONFIG',
        'config.sliding_window_stride: must not exceed sliding_window_size (tokens would be skipped)',
      );
    const { encoder_url: url } = this.settings;
    this.#encoder =
      url === undefined
        ? undefined
        : new HttpTokenEncoder({
            url,
            apiKey: this.settings.api_key ?? process.env[this.settings.api_key_env],
            timeoutMs: this.settings.timeout * 1000,
            retries: this.settings.retries,
            normalize: this.settings.normalize,
            service: this.name,
            logger: this.context.logger,
            queryPrompt: this.settings.query_prompt,
            passagePrompt: this.settings.passage_prompt,
            queryBatchSize: this.settings.inference_batch_size,
            passageBatchSize: this.settings.passage_batch_size,
            windowSize: this.settings.sliding_window_size,
            windowStride: this.settings.sliding_window_stride,
          });
  }

  /** Opens the index, the passage mapping and the subsets before the server accepts requests. */
  async start(): Promise<void> {
    const { index, docOf } = await this.#open();
    if (index)
      this.context.logger.info(
        {
          passages: index.numPassages,
          tokens: index.numEmbeddings,
          dim: index.dim,
          nbits: index.nbits,
          layout: index.layout,
          maxp: docOf !== undefined,
          storage: index.tokens.storage,
          resident_bytes: index.residentBytes(),
        },
        index.tokens.storage === 'paged'
          ? 'PLAID index opened: codes and residuals served from their files (the index needs more than config.memory_budget, or a chunk file passes 4 GiB)'
          : 'PLAID index opened',
      );
  }

  /** Where the index is served from and how much of it is resident; down once a page is damaged. */
  health(): Record<string, unknown> {
    if (this.#damage) return { state: 'down', index: 'damaged' };
    const index = this.#index;
    return {
      state: 'up',
      ...(index === undefined
        ? {}
        : { storage: index.tokens.storage, resident_bytes: index.residentBytes() }),
      ...(this.settings.memory_budget === undefined
        ? {}
        : { memory_budget_bytes: parseByteSize(this.settings.memory_budget) }),
    };
  }

  /**
   * What the answers depend on besides the config: the index's manifest (or, for an index
   * ColBERT wrote, its metadata and centroids), the passage and subset mappings, the ONNX
   * checkpoint folder.
   */
  async cacheIdentity(): Promise<string> {
    await this.#open();
    const s = this.settings;
    const index = (name: string) =>
      s.index_path === undefined ? undefined : join(s.index_path, name);
    const dir =
      s.index_path === undefined ? undefined : resolve(this.context.configDir, s.index_path);
    const files = {
      manifest: index(MANIFEST_FILE),
      metadata: index('metadata.json'),
      centroids: index('centroids.pt'),
      centroidsNpy: index('centroids.npy'),
      passages: dir === undefined ? undefined : await this.#mappingPath(dir),
      subsets: s.id_to_subset_mapping,
      checkpoint: s.checkpoint,
    };
    return filesIdentity(files, this.context.configDir);
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    await ready?.catch(() => undefined);
    await this.#index?.close();
    this.#index = undefined;
    await this.#encoder?.close();
    this.#encoder = undefined;
  }

  #open(): Promise<Ready> {
    this.#ready ??= this.#load();
    return this.#ready;
  }

  async #load(): Promise<Ready> {
    const { checkpoint } = this.settings;
    if (checkpoint !== undefined && !this.#encoder)
      this.#encoder = await onnxColbertEncoder(
        {
          checkpoint,
          batchSize: this.settings.inference_batch_size,
          windowSize: this.settings.sliding_window_size,
          windowStride: this.settings.sliding_window_stride,
          threads: this.settings.intra_op_threads,
        },
        this.context,
      );
    if (this.settings.index_path === undefined)
      return { index: undefined, docOf: undefined, subsets: undefined, masks: new Map() };
    const dir = resolve(this.context.configDir, this.settings.index_path);
    let index: PlaidIndex;
    try {
      const budget = this.settings.memory_budget;
      index = await openPlaidIndex(dir, {
        verifyChecksums: this.settings.verify_checksums,
        ...(budget === undefined ? {} : { memoryBudget: parseByteSize(budget) }),
      });
    } catch (error) {
      if (error instanceof RangeError)
        throw new IrserveError('ERR_CONFIG', `service "${this.name}": ${error.message}`);
      if (!(error instanceof FormatError)) throw error;
      throw new IrserveError('ERR_CONFIG', `service "${this.name}": index_path: ${error.message}`, {
        cause: error,
      });
    }
    this.#index = index;
    await this.#checkEncoderDimension(index.dim);
    const mappingPath = await this.#mappingPath(dir);
    const docOf =
      mappingPath === undefined
        ? undefined
        : await readPassageMapping(
            mappingPath,
            index.numPassages,
            this.settings.mapping_containing_passage_id,
          );
    const subsetFile = this.settings.id_to_subset_mapping;
    const subsets =
      subsetFile === undefined
        ? undefined
        : await passageSubsets(
            resolve(this.context.configDir, subsetFile),
            docOf ?? Array.from({ length: index.numPassages }, (_, p) => String(p)),
          );
    return { index, docOf, subsets, masks: new Map() };
  }

  /**
   * Fails the start when the encoder's token vectors cannot be searched in the index. An HTTP
   * encoder that cannot be reached yet only gets a warning: each request is checked again.
   */
  async #checkEncoderDimension(indexDim: number): Promise<void> {
    const encoder = this.#encoder;
    if (!encoder) return;
    const { checkpoint, encoder_url: url, index_path: indexPath } = this.settings;
    const field =
      checkpoint !== undefined
        ? `config.checkpoint (${checkpoint})`
        : `config.encoder_url (${url})`;
    let dim: number;
    try {
      dim = await encoder.dimension();
    } catch (error) {
      if (checkpoint !== undefined) throw error;
      this.context.logger.warn(
        { err: error },
        `could not ask ${field} for its dimension at start-up; every request is checked instead`,
      );
      return;
    }
    if (dim !== indexDim)
      throw new IrserveError(
        'ERR_CONFIG',
        `service "${this.name}": ${field} produces ${dim}-dimensional token vectors, but config.index_path (${indexPath}) holds ${indexDim}-dimensional ones: use the encoder the index was built with`,
      );
  }

  /** RoutIR's lookup: the configured file, else `passage_mapping.tsv` or `mapping.tsv` in the index. */
  async #mappingPath(dir: string): Promise<string | undefined> {
    if (this.settings.passage_mapping !== undefined)
      return resolve(this.context.configDir, this.settings.passage_mapping);
    for (const name of ['passage_mapping.tsv', 'mapping.tsv']) {
      const path = join(dir, name);
      if (
        await access(path).then(
          () => true,
          () => false,
        )
      )
        return path;
    }
    return undefined;
  }

  async searchBatch(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]> {
    if (this.#damage) throw this.#damage;
    const ready = await this.#open();
    const index = ready.index;
    if (!index)
      throw badRequest(`service "${this.name}" has no index_path: it can score but not search`);
    const plans = new Map(requests.map((request) => [request, this.#plan(request, ready)]));
    // A blank query without query_vectors finds nothing, as on every engine (docs/errors.md).
    return searchNonBlank(
      requests,
      async (asked) => {
        const queries = await this.#queries(asked, index.dim, options);
        return asked.map((request, i) => {
          const plan = plans.get(request)!;
          const hits = this.#guarded(() =>
            plaidSearch(index, queries[i]!, plan.depth, plan.passages, plan.mask),
          );
          return maxP(hits, ready.docOf, plan.limit);
        });
      },
      (request) => request.query_vectors === undefined && isBlankQuery(request),
    );
  }

  /** A damaged page met while serving from the files takes the service out of use. */
  #guarded<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof ArrayFileError)) throw error;
      this.#damage = new IrserveError(
        'ERR_ENGINE',
        `service "${this.name}": ${error.message}; the service refuses requests until restarted with a sound index`,
      );
      this.context.logger.error({ err: error }, 'PLAID index damaged');
      throw this.#damage;
    }
  }

  #plan(request: SearchRequest, ready: Ready): Plan {
    const { limit } = request;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
      throw badRequest('limit: must be a positive integer');
    const overrides = requestDepthSchema.safeParse(request);
    if (!overrides.success) {
      const issue = overrides.error.issues[0]!;
      throw badRequest(`${issue.path.join('.')}: ${issue.message}`);
    }
    // RoutIR scales the limit (by 1.5) to pick the depth and how many passages to keep.
    const k = Math.max(limit, Math.floor(limit * this.settings.k_scale));
    const depth = resolveDepth(k, configDepth(this.settings), stripUndefined(overrides.data));
    const passages = ready.docOf ? Math.max(k, Math.floor(depth.ndocs / 4)) : limit;
    const label = requestedSubset(this.name, ready.subsets, request.subset);
    let mask: Uint8Array | undefined;
    if (label !== undefined && ready.subsets) {
      mask = ready.masks.get(label) ?? subsetMask(ready.subsets, label);
      ready.masks.set(label, mask);
    }
    return { limit, passages, depth, mask };
  }

  /** Each request's query: its `query_vectors`, or its text through the encoder (one batch). */
  async #queries(
    requests: readonly (SearchRequest | ScoreRequest)[],
    dim: number | undefined,
    options?: BatchOptions,
  ): Promise<TokenMatrix[]> {
    const limits = { dim, maxRows: this.settings.max_query_tokens };
    const out: (TokenMatrix | undefined)[] = requests.map((r) =>
      r.query_vectors === undefined
        ? undefined
        : tokenRows(r.query_vectors, 'query_vectors', limits),
    );
    const missing = out.flatMap((matrix, i) => (matrix ? [] : [i]));
    if (missing.length === 0) return out as TokenMatrix[];
    const texts = missing.map((i) => {
      const query = requests[i]!.query;
      if (typeof query !== 'string' || query.trim() === '')
        throw badRequest('query: must be a non-empty string (or send query_vectors)');
      return query;
    });
    const encoded = this.#checked(await this.#requireEncoder().encodeQueries(texts, options), dim);
    missing.forEach((i, j) => (out[i] = encoded[j]!));
    return out as TokenMatrix[];
  }

  #requireEncoder(): TokenEncoder {
    if (!this.#encoder)
      throw badRequest(
        `query_vectors: required, because service "${this.name}" has no encoder (configure encoder_url or checkpoint)`,
      );
    return this.#encoder;
  }

  /** The encoder's vectors must match the index's dimension. */
  #checked(matrices: TokenMatrix[], dim: number | undefined): TokenMatrix[] {
    const wrong = matrices.find((m) => dim !== undefined && m.dim !== dim);
    if (wrong)
      throw new IrserveError(
        'ERR_ENGINE',
        `service "${this.name}": the encoder returned ${wrong.dim}-dimensional token vectors, but the index at ${this.settings.index_path} holds ${dim}-dimensional ones`,
      );
    return matrices;
  }

  /** Exact MaxSim of each query with its passages (text in windows, or `passage_vectors`). */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    const ready = await this.#open();
    const dim = ready.index?.dim;
    const queries = await this.#queries(requests, dim, options);
    return scorePassages(requests, queries, async (texts) => {
      const windows = await this.#requireEncoder().encodePassages(texts, options);
      this.#checked(
        windows.map((w) => w.matrix),
        dim ?? queries[0]?.dim,
      );
      return windows;
    });
  }
}

function configDepth(settings: PlaidxConfig): Partial<SearchDepth> {
  return stripUndefined({
    ncells: settings.ncells,
    centroid_score_threshold: settings.centroid_score_threshold,
    ndocs: settings.ndocs,
  });
}

function stripUndefined<T extends object>(value: T): Partial<SearchDepth> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
