/**
 * What `irserve tune` tunes: a pipeline that is one fusion group, `{b1, b2, ...}Rule%N`, whose
 * rule is RRF (its k), WeightedRRF (its weights and k) or ScoreFusion (its weights). The
 * branches run once per query through the server; the rule is then applied here, with the
 * server's own fusion classes and `%N` cut, for every setting tried.
 */
import { RRF, ScoreFusion, WeightedRRF } from '../engines/fusion/index.js';
import type { Scores } from '../engines/contract.js';
import { parsePipeline } from '../pipeline/parser.js';
import { printPipeline } from '../pipeline/print.js';
import { topN } from '../pipeline/scores.js';

export const TUNABLE_RULES = ['WeightedRRF', 'ScoreFusion', 'RRF'] as const;
export type TunableRule = (typeof TUNABLE_RULES)[number];

export interface FusionTarget {
  /** The pipeline as given (or the alias's expression). */
  pipeline: string;
  /** Each branch as a pipeline of its own. */
  branches: string[];
  rule: TunableRule;
  /** The merger's name in the pipeline (a service of the rule's engine). */
  merger: string;
  /** The merger's stage label: where runtime_kwargs put the parameters. */
  label: string;
  /** `%N` after the merger: the fused list's cut. */
  cut: number | undefined;
}

/** Parameters of a fusion: weights (one per branch) for the weighted rules, k for the RRFs. */
export interface FusionParams {
  weights?: number[];
  k?: number;
}

/**
 * The fusion group of `pipeline`; `rule` names the rule when the merger is a configured service
 * (not one of the rules' own names). Throws naming what does not fit.
 *
 * @example fusionTarget('{bm25, bm25-title}WeightedRRF%100').branches // ['bm25', 'bm25-title']
 */
export function fusionTarget(pipeline: string, rule?: string): FusionTarget {
  const root = parsePipeline(pipeline);
  const stages = root.kind === 'seq' ? root.stages : [root];
  const group = stages[0];
  if (stages.length !== 1 || group?.kind !== 'group')
    throw new Error(
      `tune: ${pipeline} is not a single fusion group {a, b, ...}Rule%N (tune the fusion alone; later stages such as a reranker take its cut as it is)`,
    );
  if (group.expander)
    throw new Error(`tune: ${pipeline} has a query expander; tune the fusion without it`);
  if (group.branches.length < 2) throw new Error(`tune: ${pipeline} fuses one branch only`);
  const named = rule ?? group.merger.name;
  if (!(TUNABLE_RULES as readonly string[]).includes(named))
    throw new Error(
      `tune: the merger ${group.merger.name} is not one of ${TUNABLE_RULES.join(', ')}; name the rule of its engine with --fusion`,
    );
  return {
    pipeline,
    branches: group.branches.map((branch) => printPipeline(branch)),
    rule: named as TunableRule,
    merger: group.merger.name,
    label: group.merger.alias ?? group.merger.name,
    cut: group.merger.limit,
  };
}

/** The request fields of `params` for the rule (`weights`, `rrf_k`). */
export function fusionFields(rule: TunableRule, params: FusionParams): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (rule !== 'RRF' && params.weights !== undefined) fields.weights = params.weights;
  if (rule !== 'ScoreFusion' && params.k !== undefined) fields.rrf_k = params.k;
  return fields;
}

/** Fuses one query's branch rankings as the server would, cut at the target's `%N`. */
export function fuseLocally(
  target: FusionTarget,
  rankings: readonly Scores[],
  params: FusionParams,
): Scores {
  const rule =
    target.rule === 'RRF'
      ? new RRF()
      : target.rule === 'WeightedRRF'
        ? new WeightedRRF()
        : new ScoreFusion();
  const fused = rule.fuse({
    query: '',
    rankings: [...rankings],
    ...fusionFields(target.rule, params),
  });
  return topN(fused, target.cut);
}
