import { z } from 'zod';

/** Processor names: irserve's own and RoutIR's class names (accepted for compatibility). */
export const PROCESSOR_NAMES = {
  batch: 'batch',
  single: 'single',
  minimal: 'minimal',
  BatchQueryProcessor: 'batch',
  AsyncQueryProcessor: 'single',
} as const;

/** A service object (spec "Service object"). RoutIR's field names are accepted as aliases. */
export const serviceConfigSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "-" and "."'),
  engine: z.string().min(1),
  config: z.record(z.string(), z.unknown()).default({}),
  processor: z
    .enum(Object.keys(PROCESSOR_NAMES) as [keyof typeof PROCESSOR_NAMES])
    .default('batch'),
  cache: z.number().int().min(-1).default(1024),
  cache_ttl: z.number().min(-1).default(600),
  batch_size: z.number().int().min(1).max(100_000).default(32),
  max_wait_time: z.number().min(0).max(3600).default(0.1),
  max_queue: z.number().int().min(1).default(10_000),
  max_concurrent_batches: z.number().int().min(1).max(1024).default(1),
  /** RoutIR's hand-listed key fields: accepted, no longer needed (every engine field is keyed). */
  cache_key_fields: z.array(z.string().min(1)).default([]),
  /** Request fields left out of the cache key on purpose (they must not change the answer). */
  cache_key_exclude: z.array(z.string().min(1)).default([]),
  /** Seconds a request may take in this service (queue and engine); default: the global `timeout`. */
  timeout: z.number().positive().max(86_400).optional(),
  cache_kv_url: z.string().min(1).optional(),
  cache_kv_kwargs: z.record(z.string(), z.unknown()).optional(),
  cache_redis_url: z.string().min(1).optional(),
  cache_redis_kwargs: z.record(z.string(), z.unknown()).optional(),
  scoring_disabled: z.boolean().default(false),
  /** What the service is for, in a sentence (MCP's list_services shows it to agents). */
  description: z.string().max(2000).optional(),
});

export type ServiceConfigInput = z.input<typeof serviceConfigSchema>;
export type ServiceConfig = z.output<typeof serviceConfigSchema>;
