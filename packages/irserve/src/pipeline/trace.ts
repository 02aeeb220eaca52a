import type { StageRole } from './plan.js';

/** One stage run, as `"explain": true` reports it. */
export interface TraceEntry {
  /** The stage label. */
  stage: string;
  service: string;
  role: StageRole;
  /** The query the stage ran with (a sub-query under an expander). */
  query: string;
  /** Documents in (rerank: candidates; merge: sum over the input rankings; search: 0; expand: 1 query). */
  input: number;
  /** Documents out after the `%N` cut (expand: sub-queries). */
  output: number;
  /** Whether the service answered from its cache. */
  cached: boolean;
  /** Wall time of the stage, content fetching included, in milliseconds. */
  ms: number;
}

/** Collects trace entries when explain is on; costs nothing when off. */
export class Trace {
  readonly entries: TraceEntry[] = [];

  record(entry: Omit<TraceEntry, 'ms'>, started: number): void {
    this.entries.push({ ...entry, ms: Number((performance.now() - started).toFixed(3)) });
  }
}
