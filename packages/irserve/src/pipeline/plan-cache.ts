import { LRUCache } from 'lru-cache';
import type { AliasTable } from './aliases.js';
import { compilePlan } from './compile.js';
import type { Plan } from './plan.js';
import { parsePipeline } from './parser.js';

/** How many distinct pipeline strings keep their compiled plan. */
export const PLAN_CACHE_SIZE = 512;

/**
 * Parsed and compiled plans by pipeline string (bounded LRU): a hot pipeline is parsed once.
 * Plans depend only on the string and the start-up aliases, so they never go stale; strings that
 * fail to parse or plan are not kept.
 */
export class PlanCache {
  readonly #plans: LRUCache<string, Plan>;
  readonly #aliases: AliasTable;
  readonly #rootRole: 'search' | 'rerank';

  /** `rootRole` 'rerank' plans pipelines whose first stage reranks a given list. */
  constructor(
    aliases: AliasTable,
    size = PLAN_CACHE_SIZE,
    rootRole: 'search' | 'rerank' = 'search',
  ) {
    this.#aliases = aliases;
    this.#plans = new LRUCache({ max: size });
    this.#rootRole = rootRole;
  }

  /** The plan of a pipeline string; throws ERR_PIPELINE_SYNTAX or ERR_PIPELINE_PLAN. */
  get(pipeline: string): Plan {
    let plan = this.#plans.get(pipeline);
    if (!plan) {
      plan = compilePlan(parsePipeline(pipeline), this.#aliases, this.#rootRole);
      this.#plans.set(pipeline, plan);
    }
    return plan;
  }
}
