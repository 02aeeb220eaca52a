/**
 * Where a dense service's vectors are, for `/health` and the start-up log: `memory`, or `paged`
 * (read from the index files on demand under `memory_budget`), and the bytes of them resident.
 */
import { parseByteSize } from 'irserve/plugin';
import { PagedRows } from '../vector-index/paged-rows.js';
import type { VectorIndex } from '../vector-index/types.js';

/** `memory_budget` in bytes (undefined: no limit). */
export function memoryBudgetBytes(budget: number | string | undefined): number | undefined {
  return budget === undefined ? undefined : parseByteSize(budget);
}

export function indexStorage(index: VectorIndex, budget: number | undefined) {
  const rows = index.rows;
  return {
    storage: rows instanceof PagedRows ? 'paged' : 'memory',
    ...(rows ? { resident_bytes: rows.residentBytes } : {}),
    ...(budget === undefined ? {} : { memory_budget_bytes: budget }),
  };
}
