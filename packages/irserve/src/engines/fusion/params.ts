import { badRequest } from '../../errors.js';
import type { FuseRequest } from '../contract.js';

/**
 * A non-negative finite number from a request field (such as `rrf_k`), or `fallback` when the
 * field is absent. A wrong value is ERR_BAD_REQUEST naming the field: a fusion parameter that is
 * silently ignored would give plausible but wrong rankings.
 */
export function nonNegativeNumber(request: FuseRequest, field: string, fallback: number): number {
  const value = request[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw badRequest(`${field}: must be a non-negative number`, { fields: [field] });
  return value;
}

/**
 * The weight of each ranking from the `weights` field (default 1 each). `weights` has one entry
 * per ranking, or, when the request says how many `branches` produced the rankings (a pipeline
 * with a query expander sends branches x sub-queries rankings, branch-major), one per branch.
 */
export function rankingWeights(request: FuseRequest): number[] {
  const count = request.rankings.length;
  const weights = request.weights;
  if (weights === undefined || weights === null) return new Array<number>(count).fill(1);
  if (!Array.isArray(weights) || weights.some((w) => !isWeight(w)))
    throw badRequest('weights: must be an array of non-negative numbers', { fields: ['weights'] });
  const list = weights as number[];
  if (list.length === count) return list;
  const branches = request.branches;
  if (typeof branches === 'number' && list.length === branches && count % branches === 0) {
    const perBranch = count / branches;
    return request.rankings.map((_, index) => list[Math.floor(index / perBranch)] ?? 1);
  }
  throw badRequest(
    `weights: has ${list.length} entries for ${count} rankings` +
      (typeof branches === 'number' ? ` from ${branches} branches` : ''),
    { fields: ['weights'] },
  );
}

function isWeight(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
