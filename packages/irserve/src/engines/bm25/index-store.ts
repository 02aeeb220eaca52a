/**
 * Load-or-build: the persisted index is reused when its key (format, corpus fingerprint and
 * analysis settings) matches; otherwise it is rebuilt in a worker thread and then loaded.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { TextView } from '../../collections/types.js';
import { createProgress } from '../../util/progress.js';
import type { AnalysisSettings } from './analyzer.js';
import { buildIndexFile } from './build-index.js';
import { IrserveError } from '../../errors.js';
import { formatBytes } from '../../storage/index.js';
import type { PagedIndexData } from './bm25-index.js';
import type { IndexData, IndexHeads } from './index-data.js';
import {
  FORMAT_VERSION,
  openIndexFile,
  pagedPostings,
  readPostings,
  type IndexFile,
} from './index-format.js';
import { PagedStore } from './posting-store.js';
import type { IndexedField } from './indexed-text.js';

/** Bump when tokenisation or stemming changes the terms a text produces. */
export const ANALYZER_VERSION = 1;

/** The index file inside `index_path`. */
export const INDEX_FILE = 'index.bm25';

export interface IndexSource {
  collection: string;
  view: TextView;
  fields: readonly IndexedField[];
  analysis: AnalysisSettings;
}

/** What an index was built from; a different key means the file is stale. */
export async function indexKey(source: IndexSource): Promise<string> {
  return JSON.stringify({
    format: FORMAT_VERSION,
    analyzer: ANALYZER_VERSION,
    collection: source.collection,
    view: source.view.name,
    fingerprint: await source.view.fingerprint(),
    fields: source.fields,
    stemmer: source.analysis.stemmer,
    stopwords: source.analysis.stopwords,
  });
}

export interface OpenOptions {
  /** Directory of the index file. */
  dir: string;
  logger: Logger;
  interactive: boolean;
  /** A label for progress and logs (the service name). */
  label: string;
  /**
   * Most bytes the index may keep in memory: one that needs more (lists, impacts and heads) is
   * served from its file. Undefined: no limit, all of it in memory.
   */
  memoryBudget?: number | undefined;
  signal?: AbortSignal;
}

/** An opened index: all in memory (its file closed), or paged (its file open until `close`). */
export interface OpenedIndex {
  data: IndexData | PagedIndexData;
  storage: 'memory' | 'paged';
  close(): Promise<void>;
}

/** The index of `source`: loaded from `dir` when current, else built there first. */
export async function openIndex(source: IndexSource, options: OpenOptions): Promise<OpenedIndex> {
  const path = join(options.dir, INDEX_FILE);
  const key = await indexKey(source);
  const started = performance.now();
  const ms = () => (performance.now() - started).toFixed(0);
  let opened = await openIndexFile(path, key);
  if (opened === undefined) {
    options.logger.info({ path }, 'bm25 index missing or stale: building');
    await build(source, path, key, options);
    opened = await openIndexFile(path, key);
    if (opened === undefined)
      throw new Error(`bm25 index ${path} was written but cannot be read back`);
    options.logger.info({ path, ...opened.heads.stats }, `bm25 index built in ${ms()} ms`);
  }
  const index = await load(opened, options);
  const { stats } = opened.heads;
  options.logger.info(
    {
      path,
      docs: stats.numDocs,
      terms: stats.numTerms,
      postings: stats.numPostings,
      storage: index.storage,
      ...(index.storage === 'paged' ? { memoryBudget: formatBytes(options.memoryBudget!) } : {}),
    },
    `bm25 index loaded in ${ms()} ms (${index.storage === 'paged' ? 'paged from its file' : 'in memory'})`,
  );
  return index;
}

/** Bytes a whole index takes in memory once every term was queried (lists, impacts, heads). */
export function residentNeed(heads: IndexHeads): number {
  return headBytes(heads) + heads.stats.numPostings * (6 + 4);
}

function headBytes(heads: IndexHeads): number {
  const { termBytes, termOffsets, postingStart, norms, idBytes, idOffsets } = heads;
  return [termBytes, termOffsets, postingStart, norms, idBytes, idOffsets].reduce(
    (sum, a) => sum + a.byteLength,
    0,
  );
}

/** In memory when the budget allows (or there is none), else paged from the file. */
async function load(opened: IndexFile, options: OpenOptions): Promise<OpenedIndex> {
  const { heads, file } = opened;
  const budget = options.memoryBudget;
  if (budget === undefined || residentNeed(heads) <= budget) {
    try {
      const postings = await readPostings(opened, options.signal);
      return { data: { ...heads, ...postings }, storage: 'memory', close: async () => {} };
    } finally {
      await file.close();
    }
  }
  const listBudget = budget - headBytes(heads);
  if (listBudget <= 0) {
    await file.close();
    throw new IrserveError(
      'ERR_CONFIG',
      `config.memory_budget: ${formatBytes(budget)} is less than the index's terms, norms and ids need in memory (${formatBytes(headBytes(heads))}); raise it`,
    );
  }
  const paged = pagedPostings(opened, PagedStore.readCache(file.pageSize));
  return {
    data: { ...heads, paged, listBudgetBytes: listBudget },
    storage: 'paged',
    close: () => file.close(),
  };
}

async function build(source: IndexSource, path: string, key: string, options: OpenOptions) {
  await mkdir(options.dir, { recursive: true });
  const progress = createProgress({
    label: `${options.label}: indexing`,
    total: 0,
    interactive: options.interactive,
    logger: options.logger,
    unit: 'docs',
  });
  await buildIndexFile({
    view: source.view,
    fields: source.fields,
    analysis: source.analysis,
    path,
    key,
    progress,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
