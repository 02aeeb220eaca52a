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
import type { IndexData } from './index-data.js';
import { FORMAT_VERSION, readIndexFile } from './index-format.js';
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
  signal?: AbortSignal;
}

/** The index of `source`: loaded from `dir` when current, else built there first. */
export async function openIndex(source: IndexSource, options: OpenOptions): Promise<IndexData> {
  const path = join(options.dir, INDEX_FILE);
  const key = await indexKey(source);
  const started = performance.now();
  const existing = await readIndexFile(path, key);
  const ms = () => (performance.now() - started).toFixed(0);
  if (existing !== undefined) {
    options.logger.info(
      { path, docs: existing.stats.numDocs, terms: existing.stats.numTerms },
      `bm25 index loaded in ${ms()} ms`,
    );
    return existing;
  }
  options.logger.info({ path }, 'bm25 index missing or stale: building');
  await mkdir(options.dir, { recursive: true });
  const progress = createProgress({
    label: `${options.label}: indexing`,
    total: 0,
    interactive: options.interactive,
    logger: options.logger,
    unit: 'docs',
  });
  const stats = await buildIndexFile({
    view: source.view,
    fields: source.fields,
    analysis: source.analysis,
    path,
    key,
    progress,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const built = await readIndexFile(path, key);
  if (built === undefined)
    throw new Error(`bm25 index ${path} was written but cannot be read back`);
  options.logger.info({ path, ...stats }, `bm25 index built in ${ms()} ms`);
  return built;
}
