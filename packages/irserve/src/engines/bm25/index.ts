/** The embedded BM25 engine (docs/bm25.md). */
export { BM25, MAX_LIMIT } from './bm25-engine.js';
export { bm25ConfigSchema, parseBm25Config, type Bm25Config } from './config.js';
export { Analyzer, type AnalysisSettings } from './analyzer.js';
export { LUCENE_ENGLISH_STOP_WORDS } from './stopwords.js';
