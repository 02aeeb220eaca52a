import { planError } from './plan-error.js';
import type { Plan } from './plan.js';

/** `runtime_kwargs`: stage label to extra request fields for that stage's engine. */
export type RuntimeKwargs = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * Fields the pipeline sets itself: a stage's query, its passages and rankings come from the
 * previous stages, and the view is part of the expression (`@view`). Letting runtime_kwargs
 * override them is how RoutIR's expanded queries got lost.
 */
export const STRUCTURAL_FIELDS: readonly string[] = [
  'query',
  'passages',
  'rankings',
  'view',
  'branches',
];

/** Checks that every key names a stage label and that no field is structural or malformed. */
export function checkRuntimeKwargs(plan: Plan, kwargs: RuntimeKwargs | undefined): void {
  if (!kwargs) return;
  for (const [label, fields] of Object.entries(kwargs)) {
    if (!plan.labels.has(label)) throw unknownLabel(plan, label);
    for (const field of STRUCTURAL_FIELDS) {
      if (field in fields)
        throw planError(
          `runtime_kwargs.${label}.${field}: '${field}' is set by the pipeline itself${field === 'view' ? '; write @view in the expression' : ''}`,
        );
    }
    const limit = fields.limit;
    if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) > 0))
      throw planError(`runtime_kwargs.${label}.limit: must be a positive integer`);
  }
}

function unknownLabel(plan: Plan, label: string) {
  const labels = [...plan.labels].join(', ');
  const hint = plan.aliasesUsed.has(label)
    ? ` ('${label}' is a pipeline alias; use the labels of the stages inside it)`
    : '';
  return planError(`runtime_kwargs: no stage is labelled '${label}'${hint}; labels: ${labels}`, {
    label,
  });
}
