/**
 * Runs every query through a retrieval function with bounded concurrency, in any order, and
 * collects the run. The first failure stops the evaluation (a run with silently missing
 * queries would misreport).
 */
import type { Progress } from '../util/progress.js';
import type { Query } from './files.js';

export type Scores = Record<string, number>;

export interface RunQueriesOptions {
  queries: readonly Query[];
  /** Retrieves one query's scores. */
  retrieve: (query: Query) => Promise<Scores>;
  /** Queries in flight at once (default 16). */
  concurrency?: number;
  progress?: Progress;
}

/**
 * The run: query id to scores, in the queries' order.
 *
 * @example
 * const run = await runQueries({ queries, retrieve: (q) => search(q.text), concurrency: 8 });
 */
export async function runQueries(options: RunQueriesOptions): Promise<Map<string, Scores>> {
  const { queries, retrieve, progress } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
  const results: (Scores | undefined)[] = new Array<Scores | undefined>(queries.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < queries.length) {
      const i = next++;
      const query = queries[i]!;
      try {
        results[i] = await retrieve(query);
      } catch (error) {
        failed = true;
        throw new Error(`query ${query.id}: ${(error as Error).message}`, { cause: error });
      }
      progress?.tick();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queries.length) }, worker));
  progress?.done();
  return new Map(queries.map((query, i) => [query.id, results[i] ?? {}]));
}
