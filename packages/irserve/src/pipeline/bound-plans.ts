import { bindPlan, type BindDeps, type BindRequest } from './bind.js';
import type { BoundPipeline } from './bound.js';
import type { Plan } from './plan.js';

/**
 * Bound pipelines kept by plan and collection, so that a hot pipeline is bound once rather than
 * on every request (about 80k instructions, 8-10 µs, for `{a, b}RRF%100`). Safe because binding
 * reads only what never changes once found: services are only ever added to the registry, and
 * a collection's view kinds are fixed once known (a bound pipeline that took a view unchecked,
 * or came from runtime_kwargs, is not `reusable` and not kept). Kept only for collections the
 * catalog has, so that requests naming ever new collections cannot grow it; entries go with
 * their plan when the plan cache drops it.
 *
 * @example
 * const bound = new BoundPlans(deps).bind(plan, { collection: 'docs' });
 */
export class BoundPlans {
  readonly #byPlan = new WeakMap<Plan, Map<string | undefined, BoundPipeline>>();

  constructor(private readonly deps: BindDeps) {}

  /** `bindPlan(plan, request, deps)`, from the kept ones where it can be. */
  bind(plan: Plan, request: BindRequest): BoundPipeline {
    const { collection } = request;
    const keepable =
      request.runtime_kwargs === undefined &&
      request.inline !== true &&
      (collection === undefined || this.deps.collections.has(collection));
    if (!keepable) return bindPlan(plan, request, this.deps);
    let byCollection = this.#byPlan.get(plan);
    const kept = byCollection?.get(collection);
    if (kept) return kept;
    const bound = bindPlan(plan, request, this.deps);
    if (!bound.reusable) return bound;
    if (!byCollection) {
      byCollection = new Map();
      this.#byPlan.set(plan, byCollection);
    }
    byCollection.set(collection, bound);
    return bound;
  }
}
