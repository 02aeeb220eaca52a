/** Messages between the index-building worker and the thread that feeds it documents. */
import type { AnalysisSettings } from './analyzer.js';
import type { IndexStats } from './index-data.js';

export interface BuildWorkerData {
  analysis: AnalysisSettings;
  /** Where the finished index file goes. */
  path: string;
  /** The key written into the file (what it was built from). */
  key: string;
}

/** To the worker: a batch of documents, or the end of the corpus. */
export type ToWorker = { type: 'docs'; ids: string[]; texts: string[] } | { type: 'finish' };

/** From the worker: a batch was indexed, the file is written, or the build failed. */
export type FromWorker =
  | { type: 'ack'; count: number }
  | { type: 'done'; stats: IndexStats }
  | { type: 'error'; message: string; stack?: string };
