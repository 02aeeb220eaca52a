/**
 * Runs every query through one or more retrieval functions (pipelines) with bounded concurrency
 * and collects the runs. Queries go in query-major order (every pipeline of query 1, then of
 * query 2, ...), so stages that pipelines share are computed once and reused from the services'
 * caches however small those are. A failed query is recorded (it scores 0, as a missing query
 * does in trec_eval -c) and the run goes on, until more than `maxFailures` have failed.
 */
import type { Progress } from '../util/progress.js';
import type { Query } from './files.js';

export type Scores = Record<string, number>;

export interface QueryFailure {
  /** Index of the pipeline in the list given. */
  pipeline: number;
  query: string;
  message: string;
}

export interface RunQueriesOptions {
  queries: readonly Query[];
  /** How many pipelines there are (default 1); `retrieve` is called with each index. */
  pipelines?: number;
  /** Retrieves one query's scores with pipeline `pipeline`. */
  retrieve: (query: Query, pipeline: number) => Promise<Scores>;
  /** Retrievals in flight at once (default 16). */
  concurrency?: number;
  /** Failures tolerated before the run stops (default: no limit). */
  maxFailures?: number;
  /** Told of each failure as it happens. */
  onFailure?: (failure: QueryFailure) => void;
  progress?: Progress;
}

export interface QueryRuns {
  /** Per pipeline: query id to scores, in the queries' order (a failed query: `{}`). */
  runs: Map<string, Scores>[];
  failures: QueryFailure[];
}

/** Thrown when more than `maxFailures` queries failed; carries those failures. */
export class TooManyFailures extends Error {
  constructor(readonly failures: QueryFailure[]) {
    const last = failures.at(-1)!;
    super(
      `stopped after ${failures.length} failed queries (the last: query ${last.query}: ${last.message})`,
    );
  }
}

/**
 * The runs of every pipeline over every query.
 *
 * @example
 * const { runs, failures } = await runQueries({ queries, pipelines: 2, concurrency: 8,
 *   retrieve: (q, p) => search(pipelines[p], q.text) });
 */
export async function runQueries(options: RunQueriesOptions): Promise<QueryRuns> {
  const { queries, retrieve, progress } = options;
  const pipelines = options.pipelines ?? 1;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
  const maxFailures = options.maxFailures ?? Infinity;
  const results: (Scores | undefined)[][] = Array.from({ length: pipelines }, () => []);
  const failures: QueryFailure[] = [];
  const total = queries.length * pipelines;
  let next = 0;
  const worker = async () => {
    while (failures.length <= maxFailures && next < total) {
      const job = next++;
      const index = Math.floor(job / pipelines);
      const pipeline = job % pipelines;
      const query = queries[index]!;
      try {
        results[pipeline]![index] = await retrieve(query, pipeline);
      } catch (error) {
        const failure = { pipeline, query: query.id, message: (error as Error).message };
        failures.push(failure);
        options.onFailure?.(failure);
      }
      progress?.tick();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  progress?.done();
  if (failures.length > maxFailures) throw new TooManyFailures(failures);
  const runs = results.map(
    (list) => new Map(queries.map((query, i) => [query.id, list[i] ?? {}] as const)),
  );
  return { runs, failures };
}
