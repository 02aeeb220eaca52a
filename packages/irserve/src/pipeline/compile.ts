import type { CallNode, GroupNode, SeqNode, StageNode } from './ast.js';
import type { AliasTable } from './aliases.js';
import { planError } from './plan-error.js';
import {
  labelOf,
  type Plan,
  type PlanCall,
  type PlanGroup,
  type PlanSeq,
  type PlanStage,
  type StageRole,
} from './plan.js';
import { printPipeline } from './print.js';

/** Most calls an expanded plan may have (nested aliases can multiply a short string). */
export const MAX_PLAN_CALLS = 1000;

/** A call-site `@view` of a pipeline alias, pushed down to its rerank stages without a view. */
interface ViewPush {
  readonly view: string;
  used: boolean;
}

/** What a pipeline alias's call site imposes on its body. */
interface Overrides {
  /** Call-site `%N`: replaces the outermost limit (last stage, or the merger of a group). */
  readonly limit?: number | undefined;
  readonly view?: ViewPush | undefined;
}

function planCall(
  role: StageRole,
  node: CallNode,
  limit: number | undefined,
  view: string | undefined,
): PlanCall {
  const call: { -readonly [K in keyof PlanCall]: PlanCall[K] } = {
    kind: 'call',
    role,
    name: node.name,
  };
  if (node.alias !== undefined) call.alias = node.alias;
  if (view !== undefined) call.view = view;
  if (limit !== undefined) call.limit = limit;
  return Object.freeze(call);
}

/** One compilation; collects labels and counts calls (local state only). */
class Compiler {
  readonly labels = new Set<string>();
  readonly aliasesUsed = new Set<string>();
  expands = false;
  #calls = 0;

  constructor(private readonly aliases: AliasTable) {}

  seq(node: SeqNode, role: 'search' | 'rerank', overrides: Overrides): PlanStage[] {
    const last = node.stages.length - 1;
    return node.stages.flatMap((stage, index) =>
      this.#stage(stage, index === 0 ? role : 'rerank', {
        limit: index === last ? overrides.limit : undefined,
        view: overrides.view,
      }),
    );
  }

  #stage(node: StageNode, role: 'search' | 'rerank', overrides: Overrides): PlanStage[] {
    switch (node.kind) {
      case 'call':
        return this.#call(node, role, overrides);
      case 'group':
        return [this.#group(node, role, overrides)];
    }
  }

  #call(node: CallNode, role: 'search' | 'rerank', overrides: Overrides): PlanStage[] {
    const body = this.aliases.get(node.name);
    if (body) return this.#expand(node, body, role, overrides);
    this.#count();
    if (node.view !== undefined && role !== 'rerank')
      throw planError(
        `stage '${labelOf(node)}': @${node.view} applies to rerank stages only; a search stage reads no collection`,
      );
    let view = node.view;
    if (view === undefined && role === 'rerank' && overrides.view) {
      view = overrides.view.view;
      overrides.view.used = true;
    }
    this.labels.add(labelOf(node));
    return [planCall(role, node, overrides.limit ?? node.limit, view)];
  }

  /** Replaces a pipeline alias by its body, in the role of the call site. */
  #expand(node: CallNode, body: SeqNode, role: 'search' | 'rerank', overrides: Overrides) {
    if (node.alias !== undefined)
      throw planError(
        `pipeline alias '${node.name}' takes no [${node.alias}] label; label the stages inside its definition`,
      );
    this.aliasesUsed.add(node.name);
    const push = node.view !== undefined ? { view: node.view, used: false } : overrides.view;
    const stages = this.seq(body, role, { limit: overrides.limit ?? node.limit, view: push });
    if (node.view !== undefined && push && !push.used)
      throw planError(
        `@${node.view} on pipeline alias '${node.name}': it has no rerank stage without a view of its own`,
      );
    return stages;
  }

  #group(node: GroupNode, role: 'search' | 'rerank', overrides: Overrides): PlanGroup {
    const expander = node.expander
      ? this.#auxiliary('expand', node.expander, undefined)
      : undefined;
    if (expander) this.expands = true;
    const branches = node.branches.map((branch): PlanSeq =>
      Object.freeze({
        kind: 'seq',
        stages: Object.freeze(this.seq(branch, role, { view: overrides.view })),
      }),
    );
    const merger = this.#auxiliary('merge', node.merger, overrides.limit);
    const group = expander
      ? { kind: 'group' as const, role, expander, branches, merger }
      : { kind: 'group' as const, role, branches, merger };
    return Object.freeze(group);
  }

  /** A merger or an expander: never a pipeline alias, never a view. */
  #auxiliary(role: 'merge' | 'expand', node: CallNode, limit: number | undefined): PlanCall {
    const position = role === 'merge' ? 'merger' : 'expander';
    if (this.aliases.has(node.name))
      throw planError(
        `pipeline alias '${node.name}' cannot be a ${position}; aliases stand for stages`,
      );
    if (node.view !== undefined)
      throw planError(
        `${position} '${labelOf(node)}': @${node.view} applies to rerank stages only`,
      );
    this.#count();
    this.labels.add(labelOf(node));
    return planCall(role, node, limit ?? node.limit, undefined);
  }

  #count(): void {
    if (++this.#calls > MAX_PLAN_CALLS)
      throw planError(`the expanded pipeline has more than ${MAX_PLAN_CALLS} calls`);
  }
}

/**
 * Plans a parsed pipeline before anything runs: expands pipeline aliases and gives every call
 * its role. The first stage of a sequence searches and later stages rerank its result; in a
 * group, each branch's first stage takes the group's role, the merger fuses and the expander
 * decomposes the query. With `rootRole` 'rerank' the first stage reranks a given list instead
 * (a pipeline serving as a reranker). Services are checked per request (`bind.ts`), since remote services
 * can appear after start-up.
 */
export function compilePlan(
  ast: SeqNode,
  aliases: AliasTable,
  rootRole: 'search' | 'rerank' = 'search',
): Plan {
  const compiler = new Compiler(aliases);
  const root: PlanSeq = Object.freeze({
    kind: 'seq',
    stages: Object.freeze(compiler.seq(ast, rootRole, {})),
  });
  return Object.freeze({
    root,
    canonical: printPipeline(root),
    labels: compiler.labels,
    expands: compiler.expands,
    aliasesUsed: compiler.aliasesUsed,
  });
}
