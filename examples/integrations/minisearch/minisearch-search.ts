/**
 * MiniSearch (the `minisearch` npm package) as an irserve search engine over a collection that
 * the config declares, with MiniSearch's search options (fuzzy, prefix, boost, combine_with)
 * taken from the service config. The index is built in memory by `start()`. Load it with
 * `"file_imports": ["minisearch-search.ts"]` and a service whose engine is `"MiniSearchSearch"`.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { EngineContext, EngineInit, Scores, SearchRequest, TextView } from 'irserve/plugin';
import {
  checkKnownKeys,
  checkSubset,
  ConfigProblems,
  optionalBoolean,
  readBoost,
  readFields,
  readStopwords,
  readSubsetMapping,
  requiredString,
  resolveTextView,
  type DocumentField,
} from '../shared/plugin-config.js';

const KNOWN_KEYS = [
  'collection',
  'view',
  'fields',
  'boost',
  'fuzzy',
  'prefix',
  'combine_with',
  'stopwords',
  'subset_mapping',
] as const;

/** Documents are added in chunks of this size, with a progress line after each. */
const CHUNK = 500;

interface MiniSearchSettings {
  collection: string;
  view: string | undefined;
  fields: DocumentField[];
  subsetMapping: string | undefined;
  stopwords: Set<string>;
  /** MiniSearch's own search options, built once here rather than per request. */
  searchOptions: SearchOptions;
}

/** `fuzzy`: false, or a fraction of the term length (0.2 = one edit per five letters), or edits. */
function readFuzzy(config: Record<string, unknown>, problems: ConfigProblems): number | false {
  const value = config.fuzzy;
  if (value === undefined || value === false) return false;
  if (value === true) return 0.2;
  if (typeof value === 'number' && value > 0 && value <= 3) return value;
  problems.add('fuzzy', 'must be false, true, a fraction of the term length (0-1), or edits (1-3)');
  return false;
}

function readCombineWith(config: Record<string, unknown>, problems: ConfigProblems) {
  const value = config.combine_with ?? 'OR';
  if (value === 'OR' || value === 'AND') return value;
  problems.add('combine_with', 'must be "OR" or "AND"');
  return 'OR';
}

/** Checks the service's `config`; throws one error naming every bad field. */
export function parseMiniSearchConfig(config: Record<string, unknown>): MiniSearchSettings {
  const problems = new ConfigProblems();
  checkKnownKeys(config, KNOWN_KEYS, problems);
  const collection = requiredString(config, 'collection', problems, 'the collection to index');
  const view = config.view === undefined ? undefined : requiredString(config, 'view', problems, '');
  const fields = readFields(config, problems);
  const settings: MiniSearchSettings = {
    collection,
    view,
    fields,
    subsetMapping:
      config.subset_mapping === undefined
        ? undefined
        : requiredString(config, 'subset_mapping', problems, ''),
    stopwords: new Set(readStopwords(config, problems)),
    searchOptions: {
      fields,
      boost: readBoost(config, fields, problems),
      fuzzy: readFuzzy(config, problems),
      prefix: optionalBoolean(config, 'prefix', problems, false),
      combineWith: readCombineWith(config, problems),
    },
  };
  problems.throwIfAny();
  return settings;
}

interface IndexedDoc {
  id: string;
  title: string;
  text: string;
}

interface Ready {
  index: MiniSearch<IndexedDoc>;
  mapping: Map<string, string> | undefined;
  labels: Set<string> | undefined;
}

export class MiniSearchSearch {
  readonly name: string;
  readonly settings: MiniSearchSettings;
  readonly #context: EngineContext;
  readonly #view: TextView;
  #ready: Promise<Ready> | undefined;
  #closed = false;

  constructor({ name, config, context }: EngineInit) {
    this.name = name;
    this.settings = parseMiniSearchConfig(config);
    this.#context = context;
    this.#view = resolveTextView(context.collections, this.settings.collection, this.settings.view);
  }

  /** Builds the index; the server accepts requests once every engine's start() resolved. */
  async start(): Promise<void> {
    await this.#open();
  }

  #open(): Promise<Ready> {
    this.#ready ??= this.#build();
    return this.#ready;
  }

  async #build(): Promise<Ready> {
    const { logger, configDir } = this.#context;
    const started = Date.now();
    const mapping = await readSubsetMapping(configDir, this.settings.subsetMapping);
    const { fields, stopwords } = this.settings;
    const index = new MiniSearch<IndexedDoc>({
      fields,
      // MiniSearch drops a term when processTerm returns null; it lowercases like its default.
      processTerm: (term) => {
        const lower = term.toLowerCase();
        return stopwords.has(lower) ? null : lower;
      },
    });
    let chunk: IndexedDoc[] = [];
    for await (const doc of this.#view.documents!()) {
      // close() during a long build stops it instead of finishing work nobody will use.
      if (this.#closed) throw new Error(`service "${this.name}" closed while indexing`);
      chunk.push({ id: doc.id, title: doc.title ?? '', text: doc.text });
      if (chunk.length === CHUNK) {
        // addAllAsync yields to the event loop between chunks, so /ping answers during a build.
        await index.addAllAsync(chunk, { chunkSize: 100 });
        chunk = [];
        logger.info({ indexed: index.documentCount }, `minisearch: indexed ${index.documentCount}`);
      }
    }
    await index.addAllAsync(chunk, { chunkSize: 100 });
    logger.info(
      { indexed: index.documentCount, ms: Date.now() - started },
      'minisearch: index ready',
    );
    return { index, mapping, labels: mapping && new Set(mapping.values()) };
  }

  /** One ranking (document id -> MiniSearch score) per request, in request order. */
  async searchBatch(requests: SearchRequest[]): Promise<Scores[]> {
    const ready = await this.#open();
    return requests.map((request) => this.#search(ready, request));
  }

  #search({ index, mapping, labels }: Ready, request: SearchRequest): Scores {
    const subset = checkSubset(this.name, labels, request.subset);
    const options: SearchOptions =
      subset === undefined
        ? this.settings.searchOptions
        : { ...this.settings.searchOptions, filter: (hit) => mapping?.get(hit.id) === subset };
    // MiniSearch has no limit option: results come sorted by score, so the top is a slice.
    const hits = index.search(request.query, options).slice(0, request.limit);
    const scores: Scores = {};
    for (const hit of hits) scores[String(hit.id)] = hit.score;
    return scores;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#ready?.catch(() => undefined);
    this.#ready = undefined;
  }
}
