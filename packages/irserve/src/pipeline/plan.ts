/**
 * A compiled pipeline: the AST with pipeline aliases expanded and a role on every call. Plan
 * nodes have the AST's shape (plus `role`), so `printPipeline` prints a plan as its expanded DSL.
 */
import type { Role } from '../engines/contract.js';

/** What a call does where it stands. */
export type StageRole = 'search' | 'rerank' | 'merge' | 'expand';

/** The registry role a stage role needs: rerank stages call score services, and so on. */
export const SERVICE_ROLE = {
  search: 'search',
  rerank: 'score',
  merge: 'fuse',
  expand: 'decompose_query',
} as const satisfies Record<StageRole, Role>;

export interface PlanCall {
  readonly kind: 'call';
  readonly role: StageRole;
  /** The service name. */
  readonly name: string;
  /** `[alias]` as written; the stage label is `alias ?? name`. */
  readonly alias?: string;
  readonly view?: string;
  readonly limit?: number;
}

export interface PlanGroup {
  readonly kind: 'group';
  /** The role of the branches' first stages: search, or rerank of the group's input. */
  readonly role: 'search' | 'rerank';
  readonly expander?: PlanCall;
  readonly branches: readonly PlanSeq[];
  readonly merger: PlanCall;
}

export type PlanStage = PlanCall | PlanGroup;

export interface PlanSeq {
  readonly kind: 'seq';
  readonly stages: readonly PlanStage[];
}

export interface Plan {
  readonly root: PlanSeq;
  /** The canonical DSL of the expanded plan (the pipeline cache key and `explain.plan`). */
  readonly canonical: string;
  /** Every stage label, for checking `runtime_kwargs` keys. */
  readonly labels: ReadonlySet<string>;
  /** Whether a group has an expander (the response then carries `expanded_queries`). */
  readonly expands: boolean;
  /** Names of the pipeline aliases the plan expanded (for error hints). */
  readonly aliasesUsed: ReadonlySet<string>;
}

/** The label `runtime_kwargs` use for a call: its `[alias]`, else its service name (RoutIR). */
export function labelOf(call: { readonly name: string; readonly alias?: string }): string {
  return call.alias ?? call.name;
}
