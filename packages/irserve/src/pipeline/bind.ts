import type { CollectionCatalog } from '../collections/types.js';
import { ROLES, type InputKind, type Role } from '../engines/contract.js';
import { IrserveError } from '../errors.js';
import { unknownServiceHint } from '../registry/service-hint.js';
import type { Service, ServiceLookup } from '../registry/types.js';
import {
  lastService,
  type BoundCall,
  type BoundGroup,
  type BoundPipeline,
  type BoundSeq,
  type BoundStage,
} from './bound.js';
import { checkRuntimeKwargs, type RuntimeKwargs } from './runtime-kwargs.js';
import { planError } from './plan-error.js';
import { labelOf, type Plan, type PlanCall, type PlanGroup, type PlanSeq } from './plan.js';

/** A search stage's `limit` without `%N` or a `limit` in runtime_kwargs (as `/search`). */
export const DEFAULT_SEARCH_LIMIT = 1000;

export interface BindDeps {
  readonly services: ServiceLookup;
  readonly collections: CollectionCatalog;
  /** Largest search limit (`max_limit`); unbounded when absent. */
  readonly maxLimit?: number | undefined;
}

export interface BindRequest {
  readonly collection?: string | undefined;
  /** Rerank stages read passages the request gives inline (no collection, no view). */
  readonly inline?: boolean;
  readonly runtime_kwargs?: RuntimeKwargs | undefined;
}

/** Binds one request to a plan (see `bound.ts`); one binder per request. */
class Binder {
  /** Whether a view was taken without knowing the collection's view kinds. */
  unchecked = false;

  constructor(
    private readonly deps: BindDeps,
    private readonly request: BindRequest,
  ) {}

  seq(plan: PlanSeq): BoundSeq {
    return { kind: 'seq', stages: plan.stages.map((stage) => this.#stage(stage)) };
  }

  #stage(stage: PlanSeq['stages'][number]): BoundStage {
    switch (stage.kind) {
      case 'group':
        return this.#group(stage);
      case 'call':
        return stage.role === 'rerank' ? this.#rerank(stage) : this.#search(stage);
    }
  }

  #search(call: PlanCall): BoundStage {
    const service = this.#service(call, 'search');
    const kwargs = this.#kwargs(call);
    const limit = call.limit ?? (kwargs.limit as number | undefined) ?? DEFAULT_SEARCH_LIMIT;
    const max = this.deps.maxLimit;
    if (max !== undefined && limit > max)
      throw planError(`stage '${labelOf(call)}': limit ${limit} is above max_limit (${max})`);
    return { kind: 'search', ...this.#common(call, service), fields: kwargs, limit };
  }

  #rerank(call: PlanCall): BoundStage {
    const service = this.#service(call, 'score');
    const view = this.#view(call, service.inputKind);
    return { kind: 'rerank', ...this.#common(call, service), fields: this.#kwargs(call), view };
  }

  #group(group: PlanGroup): BoundGroup {
    const expander = group.expander
      ? this.#auxiliary(group.expander, 'decompose_query')
      : undefined;
    const branches = group.branches.map((branch) => this.seq(branch));
    const merger = this.#auxiliary(group.merger, 'fuse', { branches: branches.length });
    return { kind: 'group', expander, branches, merger };
  }

  #auxiliary<R extends 'fuse' | 'decompose_query'>(
    call: PlanCall,
    role: R,
    extra: Record<string, unknown> = {},
  ): BoundCall<R> {
    const service = this.#service(call, role);
    const limit = call.limit !== undefined ? { limit: call.limit } : {};
    return {
      ...this.#common(call, service),
      fields: { ...this.#kwargs(call), ...extra, ...limit },
    };
  }

  #common<R extends Role>(call: PlanCall, service: Service<R>) {
    return { label: labelOf(call), role: call.role, service, cut: call.limit };
  }

  #kwargs(call: PlanCall): Record<string, unknown> {
    return this.request.runtime_kwargs?.[labelOf(call)] ?? {};
  }

  /** The service of a call for its role; names the service, the stage and the role it needs. */
  #service<R extends Role>(call: PlanCall, role: R): Service<R> {
    const { services } = this.deps;
    if (services.has(role, call.name)) return services.get(role, call.name);
    const label = labelOf(call);
    const details = { service: call.name, role, stage: label };
    const others = ROLES.filter((other) => services.has(other, call.name));
    if (others.length > 0)
      throw planError(
        `stage '${label}': '${call.name}' is a ${others.join(' and ')} service, but ${article(call.role)} ${call.role} stage needs ${article(role)} ${role} service`,
        details,
      );
    throw new IrserveError(
      'ERR_SERVICE_NOT_FOUND',
      `stage '${label}': no ${role} service is named '${call.name}' (${article(call.role)} ${call.role} stage needs one)${unknownServiceHint(services, [role], call.name)}`,
      { details },
    );
  }

  /** The view a rerank stage reads: its `@view` or the collection's default, of the scorer's kind. */
  #view(call: PlanCall, inputKind: InputKind): string {
    const label = labelOf(call);
    if (this.request.inline) return call.view ?? 'inline';
    const name = this.request.collection;
    if (name === undefined)
      throw planError(
        `stage '${label}' reranks documents and needs the request's \`collection\` field`,
      );
    if (!this.deps.collections.has(name))
      throw new IrserveError(
        'ERR_COLLECTION_NOT_FOUND',
        `unknown collection '${name}' (stage '${label}' reranks documents from it)`,
        { details: { collection: name } },
      );
    const collection = this.deps.collections.get(name);
    const view = call.view ?? collection.defaultView;
    const kinds = collection.viewKinds;
    // A remote collection whose views are not known yet: the content lookup decides.
    if (Object.keys(kinds).length === 0) {
      this.unchecked = true;
      return view;
    }
    const kind = kinds[view];
    if (kind === undefined)
      throw new IrserveError(
        'ERR_COLLECTION_NOT_FOUND',
        `stage '${label}': collection '${name}' has no view '${view}' (views: ${Object.keys(kinds).join(', ')})`,
        { details: { collection: name, view } },
      );
    if (kind !== inputKind)
      throw planError(
        `stage '${label}': view '${view}' of collection '${name}' is ${kind}, but score service '${call.name}' takes ${inputKind} passages; choose a ${inputKind} view with @view`,
      );
    return view;
  }
}

/**
 * Checks a plan against the registry and the request and binds it (see `bound.ts`): every
 * service exists for its role, rerank stages have a collection and a view of the scorer's input
 * kind, runtime_kwargs name stage labels. Throws a 400 error naming the stage on any problem.
 */
export function bindPlan(plan: Plan, request: BindRequest, deps: BindDeps): BoundPipeline {
  checkRuntimeKwargs(plan, request.runtime_kwargs);
  const binder = new Binder(deps, request);
  const root = binder.seq(plan.root);
  const reusable = request.runtime_kwargs === undefined && !binder.unchecked;
  return { root, service: lastService(root), collection: request.collection, reusable };
}

/** `a` or `an` before a role name. */
function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
