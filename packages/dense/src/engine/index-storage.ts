/**
 * Where a dense service's vectors are, for `/health` and the start-up log: `memory`, `paged`
 * (read from the index files on demand under `memory_budget`, with the bytes of them resident)
 * or `mapped` (an HNSW graph past `memory_budget`, memory-mapped: the page cache decides what
 * stays resident), and for a file served in place how this start verified it (`verified`:
 * by the stamp of an earlier start's hash, or hashed at start).
 */
import { parseByteSize } from 'irserve/plugin';
import { HnswIndex } from '../vector-index/hnsw.js';
import { PagedRows } from '../vector-index/paged-rows.js';
import type { VectorIndex } from '../vector-index/types.js';

/** `memory_budget` in bytes (undefined: no limit). */
export function memoryBudgetBytes(budget: number | string | undefined): number | undefined {
  return budget === undefined ? undefined : parseByteSize(budget);
}

export function indexStorage(index: VectorIndex, budget: number | undefined, verified?: string) {
  const rows = index.rows;
  const mapped = index instanceof HnswIndex && index.mapped;
  return {
    storage: rows instanceof PagedRows ? 'paged' : mapped ? 'mapped' : 'memory',
    ...(rows ? { resident_bytes: rows.residentBytes } : {}),
    ...(budget === undefined ? {} : { memory_budget_bytes: budget }),
    ...(verified === undefined ? {} : { verified }),
  };
}
