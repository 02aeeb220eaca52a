/**
 * Where `irserve eval`, `experiment` and `tune` get rankings: an app built from a config in
 * this process (no HTTP, no port), through its pipeline runner, so every service cache and the
 * pipeline cache of the config are used (and shared with a running server when the config
 * names a `cache_kv_url`).
 */
import type { Logger } from 'pino';
import type { App } from '../app.js';
import { createAppFromFile } from '../app/from-file.js';
import type { PipelineCheck } from '../core/app-core.js';
import type { Scores } from '../eval/run-queries.js';

/** One pipeline request of a run. */
export interface RetrievalRequest {
  pipeline: string;
  /** Sent when given: rerank stages read their documents from it. */
  collection?: string | undefined;
  /** Stage label to fields for that stage's engine (fusion weights, rrf_k). */
  runtime_kwargs?: Record<string, Record<string, unknown>> | undefined;
}

export interface RetrievalSource {
  /** Checks a pipeline without running it; throws the error a query would meet. */
  check(request: RetrievalRequest): Promise<PipelineCheck>;
  /** The scores of one query. */
  retrieve(request: RetrievalRequest, query: string): Promise<Scores>;
  /** The config's pipeline aliases (name to expression). */
  aliases(): Record<string, string>;
  /** Starts the engines (index builds, model loads), after the checks. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A pipeline request body: only the fields given (the runner refuses unknown ones). */
function body(request: RetrievalRequest, query: string): Record<string, unknown> {
  const out: Record<string, unknown> = { pipeline: request.pipeline, query };
  if (request.collection !== undefined) out.collection = request.collection;
  if (request.runtime_kwargs !== undefined) out.runtime_kwargs = request.runtime_kwargs;
  return out;
}

/** The pipelines of `app` as a retrieval source. */
export function appSource(app: App): RetrievalSource {
  return {
    check: (request) => app.core.pipelines.check(body(request, '')),
    retrieve: async (request, query) =>
      (await app.core.pipelines.run(body(request, query))).scores as Scores,
    aliases: () => app.core.pipelines.aliases(),
    start: () => app.start(),
    close: () => app.close(),
  };
}

/**
 * An app from a config file (indexes built on first use, as `irserve` does; `interactive` draws
 * their progress bars). Call `start()` after checking the pipelines, and `close()` when done.
 *
 * @example
 * const source = await openConfigSource('config.json', logger, false);
 * await source.check({ pipeline: 'bm25' });
 * await source.start();
 */
export async function openConfigSource(
  configPath: string,
  logger: Logger,
  interactive: boolean,
): Promise<RetrievalSource> {
  const app = await createAppFromFile(configPath, { logger, interactive });
  return appSource(app);
}
