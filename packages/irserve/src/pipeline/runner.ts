import type { Logger } from 'pino';
import type { CacheStore } from '../cache/cache-store.js';
import type { CacheEntry } from '../cache/cached.js';
import type { CollectionCatalog, ContentService } from '../collections/types.js';
import type { PipelineCheck, PipelineRunner } from '../core/app-core.js';
import { parseRequest } from '../core/validate.js';
import { ROLES } from '../engines/contract.js';
import type { CallOptions, ServiceLookup } from '../registry/types.js';
import { markScoresBestFirst } from '../core/envelope.js';
import { withTimeout } from '../core/request-deadline.js';
import { validatePipelineAliases } from './aliases.js';
import { bindPlan } from './bind.js';
import { BoundPlans } from './bound-plans.js';
import type { BoundPipeline } from './bound.js';
import { SharedDeadlines } from '../util/shared-deadlines.js';
import { ContentFetcher, InlinePassages } from './content-fetcher.js';
import { runSeq } from './execute.js';
import { createPipelineCall, pipelineKey, type PipelineValue } from './pipeline-cache.js';
import { PlanCache } from './plan-cache.js';
import type { Plan } from './plan.js';
import {
  pipelineRequestSchema,
  plainPipelineRequest,
  type PipelineRequest,
} from './request-schema.js';
import { cutRanking } from './scores.js';
import { Trace } from './trace.js';

export interface PipelineRunnerDeps {
  services: ServiceLookup;
  content: ContentService;
  collections: CollectionCatalog;
  logger: Logger;
  /** Config `pipeline_aliases`: name to pipeline expression. */
  aliases: Record<string, string>;
  /** Config `pipeline_cache` (entries; 0 or -1 disables) and `pipeline_cache_ttl` (seconds). */
  cache: { size: number; ttl: number; store?: CacheStore<CacheEntry<PipelineValue>> | undefined };
  /** Config `max_limit`: the largest limit a search stage may ask for (unbounded when absent). */
  maxLimit?: number;
}

/**
 * Builds the `/pipeline` runner of an app. Pipeline aliases are checked here, at start-up
 * (syntax, cycles, clashes with the services registered so far); throws ERR_CONFIG.
 *
 * @example
 * const runner = createPipelineRunner({ services, content, collections, logger, aliases: {},
 *   cache: { size: -1, ttl: 600 } });
 * await runner.run({ pipeline: '{bm25, dense}RRF%100 >> rerank', query: 'q', collection: 'docs' });
 */
export function createPipelineRunner(deps: PipelineRunnerDeps): PipelineRunner {
  return new Pipelines(deps);
}

/** The runner: plans and bound pipelines kept per expression, the pipeline cache in front. */
class Pipelines implements PipelineRunner {
  readonly #deps: PipelineRunnerDeps;
  readonly #sources: Readonly<Record<string, string>>;
  readonly #plans: PlanCache;
  readonly #rerankPlans: PlanCache;
  readonly #cache: ReturnType<typeof createPipelineCall>;
  readonly #boundPlans: BoundPlans;
  /** Score maps this runner's cuts left best first, so the answer's serializer need not check. */
  readonly #bestFirst = new WeakSet<object>();

  constructor(deps: PipelineRunnerDeps) {
    const serviceNames = ROLES.flatMap((role) => deps.services.names(role));
    const table = validatePipelineAliases(deps.aliases, serviceNames);
    this.#deps = deps;
    this.#sources = Object.freeze({ ...deps.aliases });
    this.#plans = new PlanCache(table);
    this.#rerankPlans = new PlanCache(table, undefined, 'rerank');
    this.#cache = createPipelineCall(deps.cache, deps.logger);
    this.#boundPlans = new BoundPlans(deps);
  }

  async run(body: unknown, given: CallOptions = {}): Promise<Record<string, unknown>> {
    const request = plainPipelineRequest(body) ?? parseRequest(pipelineRequestSchema, body);
    const options = sharingDeadlines(withTimeout(given, request.timeout) ?? given);
    const plan = this.#plans.get(request.pipeline);
    const bound = this.#boundPlans.bind(plan, request);
    const trace = request.explain ? new Trace() : undefined;
    const cache = this.#cache;
    const job = {
      key: cache.enabled ? pipelineKey(plan, request) : '',
      run: () => this.#execute(bound, request, trace, options),
    };
    const result = await cache.call(job, options);
    const envelope = answer(request, plan, bound, result, this.#bestFirst.has(result.value.scores));
    if (trace) {
      envelope.explain = explain(plan, trace, result.cached, cache.enabled);
      // The id of the request (also in its log line and passed on by relays), to find one in the other.
      if (options.requestId !== undefined)
        (envelope.explain as Record<string, unknown>).request_id = options.requestId;
    }
    return envelope;
  }

  async rerank(
    pipeline: string,
    query: string,
    passages: readonly string[],
    options: CallOptions = {},
  ): Promise<Record<string, number>> {
    const bound = bindPlan(this.#rerankPlans.get(pipeline), { inline: true }, this.#deps);
    const input: Record<string, number> = {};
    for (let i = 0; i < passages.length; i++) input[String(i)] = 0;
    const fetcher = new InlinePassages(passages);
    const context = { fetcher, options: sharingDeadlines(options), trace: undefined };
    const flow = await runSeq(bound.root, query, input, context);
    return flow.scores;
  }

  async check(body: unknown): Promise<PipelineCheck> {
    const request = plainPipelineRequest(body) ?? parseRequest(pipelineRequestSchema, body);
    const plan = this.#plans.get(request.pipeline);
    const bound = this.#boundPlans.bind(plan, request);
    return { plan: plan.canonical, service: bound.service };
  }

  aliases(): Record<string, string> {
    return { ...this.#sources };
  }

  async #execute(
    bound: BoundPipeline,
    request: PipelineRequest,
    trace: Trace | undefined,
    options: CallOptions,
  ): Promise<PipelineValue> {
    const fetcher =
      bound.collection !== undefined
        ? new ContentFetcher(this.#deps.content, bound.collection, options)
        : undefined;
    const flow = await runSeq(bound.root, request.query, undefined, { fetcher, options, trace });
    const final = cutRanking(flow.scores, request.limit, flow.keys, flow.ranked);
    if (final.ranked) this.#bestFirst.add(final.scores);
    return { scores: final.scores, expanded: flow.expanded };
  }
}

/** `options` whose stages share their deadline signals where their deadlines are the same. */
function sharingDeadlines(options: CallOptions): CallOptions {
  return options.deadlines ? options : { ...options, deadlines: new SharedDeadlines() };
}

/** The answer's fields, in the order RoutIR writes them (`explain` is added after). */
function answer(
  request: PipelineRequest,
  plan: Plan,
  bound: BoundPipeline,
  result: { value: PipelineValue; cached: boolean; timestamp: number },
  bestFirst: boolean,
): Record<string, unknown> {
  const envelope: Record<string, unknown> = { cached: result.cached };
  if (request.collection !== undefined) envelope.collection = request.collection;
  envelope.pipeline = request.pipeline;
  envelope.processed = true;
  envelope.query = request.query;
  envelope.scores = result.value.scores;
  if (bestFirst) markScoresBestFirst(envelope);
  envelope.service = bound.service;
  envelope.timestamp = result.timestamp;
  if (plan.expands) envelope.expanded_queries = [...new Set(result.value.expanded)];
  return envelope;
}

function explain(plan: Plan, trace: Trace, cached: boolean, enabled: boolean) {
  return {
    plan: plan.canonical,
    pipeline_cache: enabled ? (cached ? 'hit' : 'miss') : 'off',
    stages: trace.entries,
  };
}
