/**
 * Checks every pipeline, starts the source, then runs every query through every pipeline with a
 * progress bar: the common part of `irserve eval`, `experiment` and `tune`.
 */
import type { Logger } from 'pino';
import type { Query } from '../eval/files.js';
import { runQueries, type QueryRuns } from '../eval/run-queries.js';
import { createProgress } from '../util/progress.js';
import { openConfigSource, type RetrievalRequest, type RetrievalSource } from './app-source.js';
import { loadJudgedQueries, type JudgedQueries, type PipelineSpec } from './inputs.js';

export interface RunPipelinesOptions {
  source: RetrievalSource;
  specs: readonly PipelineSpec[];
  collection?: string | undefined;
  queries: readonly Query[];
  concurrency: number;
  maxFailures?: number;
  logger: Logger;
  /** Label of the progress bar. */
  label: string;
  /** Draw a progress bar (a terminal is attached); else log lines. */
  interactive: boolean;
  /** Runs after the checks, before the engines start (creating output files and folders). */
  prepare?: () => Promise<void>;
  /** Sent with every request (fusion parameters being tried). */
  runtimeKwargs?: Record<string, Record<string, unknown>> | undefined;
}

/**
 * Throws one error listing every pipeline that fails its check (unknown service, a rerank stage
 * without a collection, a syntax error, ...), before any query runs.
 */
export async function checkPipelines(
  source: RetrievalSource,
  requests: readonly (RetrievalRequest & { name: string })[],
): Promise<void> {
  const problems: string[] = [];
  for (const request of requests) {
    try {
      await source.check(request);
    } catch (error) {
      const code = (error as { code?: string }).code;
      problems.push(
        `pipeline ${request.name}: ${(error as Error).message}${code ? ` (${code})` : ''}`,
      );
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

/** Checks, starts and runs; returns the runs (one per spec) and the failures. */
export async function runPipelines(
  options: RunPipelinesOptions,
): Promise<QueryRuns & { seconds: number }> {
  const { source, specs, collection, queries, logger } = options;
  const requests = specs.map((spec) => ({
    name: spec.name,
    pipeline: spec.pipeline,
    collection,
    runtime_kwargs: options.runtimeKwargs,
  }));
  await checkPipelines(source, requests);
  await options.prepare?.();
  await source.start();
  const progress = createProgress({
    label: options.label,
    total: queries.length * specs.length,
    interactive: options.interactive,
    logger,
    unit: specs.length > 1 ? 'queries x pipelines' : 'queries',
  });
  const started = performance.now();
  const result = await runQueries({
    queries,
    pipelines: specs.length,
    concurrency: options.concurrency,
    maxFailures: options.maxFailures,
    progress,
    retrieve: (query, index) => source.retrieve(requests[index]!, query.text),
    onFailure: (failure) =>
      logger.warn(
        `pipeline ${specs[failure.pipeline]!.name}, query ${failure.query}: ${failure.message}`,
      ),
  });
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

export interface RunJudgedOptions extends Omit<RunPipelinesOptions, 'source' | 'queries'> {
  /** The config file of the app. */
  config: string;
  /** The queries file (JSONL) and the qrels file. */
  queriesPath: string;
  qrelsPath: string;
}

/**
 * Reads the queries and qrels, builds the app of the config, runs every judged query through
 * every pipeline (`runPipelines`) and closes the app: `irserve eval` and `experiment`.
 */
export async function runJudged(
  options: RunJudgedOptions,
): Promise<QueryRuns & { seconds: number; judged: JudgedQueries }> {
  const { logger } = options;
  const judged = await loadJudgedQueries(options.queriesPath, options.qrelsPath);
  if (judged.missing.length > 0)
    logger.warn(
      `${judged.missing.length} judged queries are not in ${options.queriesPath}: they score 0`,
    );
  const source = await openConfigSource(options.config, logger, options.interactive);
  try {
    const result = await runPipelines({ ...options, source, queries: judged.queries });
    return { ...result, judged };
  } finally {
    await source.close();
  }
}
