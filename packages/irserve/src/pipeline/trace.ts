import { rankedList, type RankedDoc } from '../core/ranked-list.js';
import type { Scores } from '../engines/contract.js';
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
  /**
   * What the stage handed on (search, rerank and merge stages): its documents best first, ties by
   * ascending id, as an array (a score map would list integer-like ids in numeric order).
   */
  results?: RankedDoc[];
}

/** Collects trace entries when explain is on; costs nothing when off. */
export class Trace {
  readonly entries: TraceEntry[] = [];

  /** Records a stage that ended now; `scores` (what it handed on) are ranked after the clock stops. */
  record(entry: Omit<TraceEntry, 'ms' | 'results'>, started: number, scores?: Scores): void {
    const ms = Number((performance.now() - started).toFixed(3));
    this.entries.push(scores ? { ...entry, ms, results: rankedList(scores) } : { ...entry, ms });
  }
}
