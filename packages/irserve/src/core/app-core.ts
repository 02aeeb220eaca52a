/**
 * The transport-neutral core of an app: what HTTP and gRPC adapters, the pipeline and the CLI
 * call. Adapters decode a request, call a core function with this object, and encode the result.
 */
import type { Logger } from 'pino';
import type { CollectionCatalog, ContentService } from '../collections/types.js';
import type { ServiceLookup } from '../registry/types.js';
import type { Abortable } from '../util/abort-scope.js';

/** Runs `/pipeline` requests; built by the pipeline module. */
/** What `PipelineRunner.check` found: the canonical plan and the service answering last. */
export interface PipelineCheck {
  plan: string;
  service: string;
}

export interface PipelineRunner {
  /** Validates, plans and runs one request body; returns the response envelope. */
  run(
    body: unknown,
    options?: { requestId?: string; signal?: Abortable },
  ): Promise<Record<string, unknown>>;
  /**
   * Checks a request body as `run` would before running anything (schema, syntax, plan, every
   * service for its role, the collection and views rerank stages need, runtime_kwargs labels);
   * throws the error `run` would throw. For tools that run many queries: they fail before the
   * first one, not at it.
   */
  check(body: unknown): Promise<PipelineCheck>;
  /** Named sub-pipelines from the config, as `/avail` lists them. */
  aliases(): Record<string, string>;
  /**
   * Runs a pipeline whose first stage reranks `passages` (given inline, as rerank APIs do)
   * instead of searching; returns the scores by passage position (`"0"`, `"1"`, ...). Passages
   * that a `%N` cut drops have no score.
   */
  rerank(
    pipeline: string,
    query: string,
    passages: readonly string[],
    options?: { requestId?: string; signal?: Abortable },
  ): Promise<Record<string, number>>;
}

export interface AppCore {
  readonly services: ServiceLookup;
  readonly collections: CollectionCatalog;
  readonly content: ContentService;
  readonly pipelines: PipelineRunner;
  readonly logger: Logger;
  /** Largest `limit` a request may ask for. */
  readonly maxLimit: number;
  /**
   * Search services that index one of the app's collections (config `collection`), to the
   * collection: `/avail`'s `search_collections`, so a client (the playground) can pick the
   * collection a pipeline's documents come from.
   */
  readonly searchCollections?: Readonly<Record<string, string>>;
  /**
   * Readiness (`ready`: false while starting or draining) and the state of the parts that can
   * degrade without failing requests (external cache stores, imports, engines' back-ends).
   */
  health(): Record<string, unknown>;
}
