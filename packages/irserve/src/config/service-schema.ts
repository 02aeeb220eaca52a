import { z } from '../prebundled/zod.js';

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
    .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "-" and "."')
    .describe('Service name used in requests and pipelines.'),
  engine: z
    .string()
    .min(1)
    .describe(
      'Engine class name: a built-in (BM25, RRF, RerankAPI, ...), one of an installed @irserve/* extra (Dense, ...) or of a file_imports plugin.',
    ),
  config: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "The engine's own settings; see the engine's schema (editors show it once engine is set).",
    ),
  processor: z
    .enum(Object.keys(PROCESSOR_NAMES) as [keyof typeof PROCESSOR_NAMES])
    .default('batch')
    .describe(
      "batch (queue and batch requests; default), single (each request alone) or minimal (no cache, no batching). RoutIR's class names are accepted.",
    ),
  cache: z
    .number()
    .int()
    .min(-1)
    .default(1024)
    .describe('Cache entries for this service; -1 or 0 disables the cache.'),
  cache_ttl: z
    .number()
    .min(-1)
    .default(600)
    .describe('Lifetime of a cache entry in seconds; -1: no expiry.'),
  batch_size: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(32)
    .describe('Most requests handed to the engine in one batch.'),
  max_wait_time: z
    .number()
    .min(0)
    .max(3600)
    .default(0.1)
    .describe('Seconds a batch waits to fill after its first request.'),
  max_queue: z
    .number()
    .int()
    .min(1)
    .default(10_000)
    .describe(
      'Most requests waiting for a batch; past it requests fail fast with 503 (ERR_OVERLOADED).',
    ),
  max_concurrent_batches: z
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(1)
    .describe('Batches of this service in flight at once.'),
  cache_key_fields: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "RoutIR's hand-listed cache key fields: accepted, no longer needed (every field the engine receives is in the key).",
    ),
  cache_kv_url: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Redis-protocol URL of an external cache store (Redis, Valkey, KeyDB, Dragonfly) instead of memory.',
    ),
  cache_kv_kwargs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Client options of that store (password, username, db, tls, key_prefix, ...).'),
  cache_redis_url: z.string().min(1).optional().describe("RoutIR's name of cache_kv_url."),
  cache_redis_kwargs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("RoutIR's name of cache_kv_kwargs."),
  scoring_disabled: z
    .boolean()
    .default(false)
    .describe('Do not serve the score role of an engine that has one (serve search only).'),
  cache_key_exclude: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Request fields left out of the cache key on purpose (they must not change the answer).',
    ),
  timeout: z
    .number()
    .positive()
    .max(86_400)
    .optional()
    .describe(
      'Seconds a request may take in this service (queue and engine); default: the global `timeout`.',
    ),
  description: z
    .string()
    .max(2000)
    .optional()
    .describe("What the service is for, in a sentence (MCP's list_services shows it to agents)."),
});

export type ServiceConfigInput = z.input<typeof serviceConfigSchema>;
export type ServiceConfig = z.output<typeof serviceConfigSchema>;
