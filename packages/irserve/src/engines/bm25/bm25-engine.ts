/**
 * The `BM25` engine: Lucene-compatible BM25 over a collection's text view, with a persisted
 * index (built in a worker thread on first start), MaxScore top-k, subset filtering, and a
 * `score` role that scores passages with the collection's statistics. See docs/bm25.md.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { TextView } from '../../collections/types.js';
import { badRequest, IrserveError } from '../../errors.js';
import { ArrayFileError, parseByteSize } from '../../storage/index.js';
import { filesIdentity } from '../../util/file-identity.js';
import {
  BaseEngine,
  type EngineInit,
  type Role,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
} from '../contract.js';
import { Analyzer, type AnalysisSettings } from './analyzer.js';
import { Bm25Index } from './bm25-index.js';
import { bm25ConfigSchema, parseBm25Config, type Bm25Config } from './config.js';
import { openIndex } from './index-store.js';
import type { DocFilter } from './search-types.js';
import { denseIntegerIds, scoresObject } from './scores-object.js';
import { searchTopDocs } from './top-docs.js';
import { scorePassage, termCounts, weightedQuery } from './query.js';
import { resolveStopwords } from './stopwords.js';
import {
  readSubsetMapping,
  requestedSubset,
  subsetLabels,
  type SubsetLabels,
} from '../subset-mapping.js';

/** The largest `limit` a search may ask for. */
export const MAX_LIMIT = 10_000;

interface Ready {
  index: Bm25Index;
  /** Closes the index file (when its lists are paged from it). */
  close(): Promise<void>;
  storage: 'memory' | 'paged';
  analyzer: Analyzer;
  subsets: SubsetLabels | undefined;
  /** Ids as numbers when they are small integers, for building results fast (scores-object.ts). */
  integerIds: Int32Array | undefined;
}

export class BM25 extends BaseEngine {
  static readonly inputKind = 'text' as const;
  static readonly configSchema = bm25ConfigSchema;
  readonly settings: Bm25Config;
  readonly #view: TextView;
  readonly #analysis: AnalysisSettings;
  readonly #abort = new AbortController();
  #ready: Promise<Ready> | undefined;
  /** The index once loaded, for checks that cannot wait (checkRequest) and health. */
  #loaded: Ready | undefined;
  /** Set when a page read from the index file does not match its checksum: every search fails. */
  #damage: IrserveError | undefined;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseBm25Config(init.config);
    this.#view = this.#resolveView();
    this.#analysis = {
      stemmer: this.settings.stemmer,
      stopwords: resolveStopwords(this.settings.stopwords),
    };
  }

  #resolveView(): TextView {
    const { collection, view } = this.settings;
    const collections = this.context.collections;
    if (!collections.has(collection)) {
      const known = collections.names();
      throw new IrserveError(
        'ERR_CONFIG',
        `config.collection: no collection "${collection}" (collections: ${known.join(', ') || 'none'})`,
      );
    }
    let resolved;
    try {
      resolved = collections.get(collection).view(view);
    } catch (error) {
      throw new IrserveError('ERR_CONFIG', `config.view: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (resolved.kind !== 'text')
      throw new IrserveError(
        'ERR_CONFIG',
        `config.view: "${resolved.name}" is a ${resolved.kind} view; BM25 needs a text view`,
      );
    return resolved;
  }

  /** The directory of the index file. */
  get indexDir(): string {
    const path = this.settings.index_path;
    if (path === undefined) return join(this.context.cacheDir, 'bm25');
    return isAbsolute(path) ? path : resolve(this.context.configDir, path);
  }

  /** Loads the index, building it first when missing or stale. Idempotent. */
  async start(): Promise<void> {
    await this.#open();
  }

  #open(): Promise<Ready> {
    this.#ready ??= (async () => {
      const opened = await openIndex(
        {
          collection: this.settings.collection,
          view: this.#view,
          fields: this.settings.fields,
          analysis: this.#analysis,
        },
        {
          dir: this.indexDir,
          logger: this.context.logger,
          interactive: this.context.interactive,
          label: this.name,
          memoryBudget: this.#memoryBudget(),
          signal: this.#abort.signal,
        },
      );
      const index = new Bm25Index(opened.data, { k1: this.settings.k1, b: this.settings.b });
      const subsets = await this.#loadSubsets(index);
      const integerIds = denseIntegerIds(index);
      const ready: Ready = {
        index,
        close: () => opened.close(),
        storage: opened.storage,
        analyzer: new Analyzer(this.#analysis),
        subsets,
        integerIds,
      };
      this.#loaded = ready;
      return ready;
    })();
    return this.#ready;
  }

  #memoryBudget(): number | undefined {
    const budget = this.settings.memory_budget;
    return budget === undefined ? undefined : parseByteSize(budget);
  }

  /**
   * For `/health`: where the index is (memory or paged) and how much of it is resident; `down`
   * once a damaged page was found (the service refuses requests until restarted).
   */
  health(): Record<string, unknown> {
    const ready = this.#loaded;
    if (ready === undefined) return { state: 'up', index: 'loading' };
    return {
      state: this.#damage ? 'down' : 'up',
      index: this.#damage ? 'damaged' : 'ready',
      storage: ready.storage,
      resident_bytes: ready.index.residentBytes(),
      ...(this.settings.memory_budget === undefined
        ? {}
        : { memory_budget_bytes: this.#memoryBudget() }),
    };
  }

  async #loadSubsets(index: Bm25Index): Promise<SubsetLabels | undefined> {
    const path = this.settings.id_to_subset_mapping;
    if (path === undefined) return undefined;
    return subsetLabels(
      index.docIds(),
      await readSubsetMapping(resolve(this.context.configDir, path)),
    );
  }

  /**
   * Rejects a search this engine cannot honour (a bad limit, a subset without a mapping or not
   * in it) before it joins a batch, so it fails alone.
   */
  checkRequest(role: Role, request: Record<string, unknown>): void {
    if (role !== 'search') return;
    const { limit, subset } = request;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT)
      throw badRequest(`limit: must be an integer from 1 to ${MAX_LIMIT}`);
    if (subset === undefined || subset === null) return;
    if (this.#loaded !== undefined || this.settings.id_to_subset_mapping === undefined)
      requestedSubset(this.name, this.#loaded?.subsets, subset);
  }

  async searchBatch(requests: SearchRequest[]): Promise<Scores[]> {
    const ready = await this.#open();
    // Scoring runs on the event loop. The stages dispatched beside this one in the same turn (a
    // back-end engine or a remote API in `{bm25, backend}RRF`) send their requests first, so
    // that their round trips overlap this work instead of starting after it.
    await afterPendingIo();
    if (this.#damage) throw this.#damage;
    return this.#watchingPages(() => requests.map((request) => this.#search(ready, request)));
  }

  /**
   * Runs `work`; a page of the index file that does not match its checksum (a paged index)
   * takes the service out of use until it restarts, and fails the batch with ERR_ENGINE.
   */
  #watchingPages<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof ArrayFileError) || error.fault !== 'damaged') throw error;
      this.#damage = new IrserveError(
        'ERR_ENGINE',
        `service "${this.name}": its index file is damaged (${error.message}); delete it and restart to rebuild it`,
        { cause: error },
      );
      this.context.logger.error({ err: error }, 'bm25 index damaged');
      throw this.#damage;
    }
  }

  #search({ index, analyzer, subsets, integerIds }: Ready, request: SearchRequest): Scores {
    const { limit } = request;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      throw badRequest(`limit: must be an integer from 1 to ${MAX_LIMIT}`);
    const filter = this.#filter(subsets, request.subset);
    const terms = weightedQuery(index, analyzer, request.query);
    return scoresObject(index, searchTopDocs(index, terms, limit, filter), integerIds);
  }

  #filter(subsets: SubsetLabels | undefined, subset: unknown): DocFilter | undefined {
    const wanted = requestedSubset(this.name, subsets, subset);
    return wanted === undefined || subsets === undefined
      ? undefined
      : { labels: subsets.labels, wanted };
  }

  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    const { index, analyzer } = await this.#open();
    if (this.#damage) throw this.#damage;
    return requests.map((request) => {
      const query = termCounts(analyzer, request.query);
      return request.passages.map((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: BM25 scores text passages`);
        return scorePassage(index, analyzer, query, passage);
      });
    });
  }

  /**
   * The index's checksum (what it was built from and how: corpus, fields, analysis) and the
   * subset mapping's content; `k1` and `b` are in the config.
   */
  async cacheIdentity(): Promise<string> {
    const { index } = await this.#open();
    const subsets = { subsets: this.settings.id_to_subset_mapping };
    return `${index.data.digest} ${await filesIdentity(subsets, this.context.configDir)}`;
  }

  async close(): Promise<void> {
    this.#abort.abort(new Error(`service "${this.name}" closed while its index was building`));
    const ready = this.#ready;
    this.#ready = undefined;
    this.#loaded = undefined;
    this.#damage = undefined;
    await (await ready?.catch(() => undefined))?.close();
  }
}
