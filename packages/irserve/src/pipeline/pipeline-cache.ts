import type { Logger } from 'pino';
import type { Scores } from '../engines/contract.js';
import { hashKey } from '../processors/cache-key.js';
import { canonical } from '../util/canonical.js';
import { withCache, type CacheEntry } from '../cache/cached.js';
import { MemoryStore } from '../cache/memory-store.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { CallOptions, ServiceResult } from '../registry/types.js';
import type { Plan } from './plan.js';
import type { PipelineRequest } from './request-schema.js';

/** The result of one pipeline run: what the pipeline cache stores. */
export interface PipelineValue {
  readonly scores: Scores;
  /** Sub-queries of the expanders that ran (empty when none did). */
  readonly expanded: readonly string[];
}

/** One run to do, with the key it is cached under. */
export interface PipelineJob {
  readonly key: string;
  run(): Promise<PipelineValue>;
}

export type PipelineCall = (
  job: PipelineJob,
  options?: CallOptions,
) => Promise<ServiceResult<PipelineValue>>;

/**
 * The pipeline cache key: the canonical expanded plan, the query, the collection, the
 * runtime_kwargs (every key names a stage of the plan; they are checked before this) and the
 * final `limit`. `explain` is not part of it: it changes the response, not the result.
 */
export function pipelineKey(plan: Plan, request: PipelineRequest): string {
  return `pipeline:${hashKey([
    plan.canonical,
    request.query,
    request.collection ?? null,
    canonical(request.runtime_kwargs ?? {}), // equal whatever the order of their keys
    request.limit ?? null,
  ])}`;
}

/**
 * Runs jobs through the pipeline-level cache (`pipeline_cache` entries, `pipeline_cache_ttl`
 * seconds; 0 or -1 disables it). Identical runs in flight are computed once; errors are never
 * cached; a hit answers `cached: true` with the original timestamp.
 */
export function createPipelineCall(
  cache: { size: number; ttl: number; store?: CacheStore<CacheEntry<PipelineValue>> | undefined },
  logger: Logger,
): { call: PipelineCall; enabled: boolean } {
  const compute: PipelineCall = async (job) => ({
    value: await job.run(),
    cached: false,
    timestamp: Date.now() / 1000,
  });
  if (cache.size <= 0) return { call: compute, enabled: false };
  // An external store (pipeline_cache_kv_url) when the app built one, else the in-memory LRU.
  const store =
    cache.store ??
    new MemoryStore<CacheEntry<PipelineValue>>({
      capacity: cache.size,
      ttlSeconds: cache.ttl,
    });
  const { call } = withCache<PipelineJob, PipelineValue>(compute, {
    store,
    key: (job) => job.key,
    onStoreError: (error) => logger.warn({ err: error }, 'pipeline cache store failed'),
  });
  return { call, enabled: true };
}
