import { z } from 'zod';
import { collectionConfigSchema } from '../collections/config.js';
import { compatConfigSchema } from './compat-schema.js';
import { mcpConfigSchema } from './mcp-schema.js';
import { serviceConfigSchema } from './service-schema.js';

/** A `server_imports` entry: a base URL, or an object with relay settings. */
export const serverImportSchema = z.union([
  z.url(),
  z.strictObject({
    endpoint: z.url(),
    grpc_endpoint: z.string().min(1).optional(),
    api_key: z.string().optional(),
    /** Name of an environment variable holding the remote's key (keeps secrets out of the file). */
    api_key_env: z.string().min(1).optional(),
    transport: z.enum(['auto', 'grpc', 'rest']).default('auto'),
    timeout: z.number().positive().default(600),
    retries: z.number().int().min(0).max(100).default(10),
    tls: z.boolean().default(false),
  }),
]);

/** The configuration file (spec "Configuration file"), plus irserve's server settings. */
export const configSchema = z.strictObject({
  services: z.array(serviceConfigSchema).default([]),
  collections: z.array(collectionConfigSchema).default([]),
  server_imports: z.array(serverImportSchema).default([]),
  file_imports: z.array(z.string().min(1)).default([]),
  pipeline_aliases: z.record(z.string().min(1), z.string().min(1)).default({}),
  pipeline_cache: z.number().int().min(-1).default(-1),
  pipeline_cache_ttl: z.number().min(-1).default(600),
  pipeline_cache_kv_url: z.string().min(1).optional(),
  pipeline_cache_kv_kwargs: z.record(z.string(), z.unknown()).optional(),
  pipeline_cache_redis_url: z.string().min(1).optional(),
  pipeline_cache_redis_kwargs: z.record(z.string(), z.unknown()).optional(),
  dynamic_pipeline: z.boolean().default(true),
  /** Cache of relayed (imported) search/score/fuse/decompose services. */
  relay_cache: z.number().int().min(-1).default(1024),
  relay_cache_ttl: z.number().min(-1).default(600),
  /** Cache of content looked up in imported collections (disabled by default, as in the spec). */
  relay_content_cache: z.number().int().min(-1).default(-1),
  relay_content_cache_ttl: z.number().min(-1).default(600),
  relay_content_cache_kv_url: z.string().min(1).optional(),
  relay_content_cache_kv_kwargs: z.record(z.string(), z.unknown()).optional(),
  relay_content_cache_redis_url: z.string().min(1).optional(),
  relay_content_cache_redis_kwargs: z.record(z.string(), z.unknown()).optional(),
  /** Seconds a request may take in a service unless the service or the request says otherwise. */
  timeout: z.number().positive().max(86_400).default(60),
  /** Largest `limit` a request may ask for. */
  max_limit: z.number().int().min(1).max(1_000_000).default(10_000),
  /** Largest request body in bytes. */
  body_limit: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** Provider-compatible routes (OpenAI, Cohere, Jina, TEI): model names to services. */
  compat: compatConfigSchema.default({
    embeddings: {},
    rerank: {},
    sparse_embeddings: {},
    expose_services: true,
    tei: {},
  }),
  /** The MCP endpoint `/mcp`. */
  mcp: mcpConfigSchema.default({ enabled: true, allowed_origins: [], allowed_hosts: [] }),
  /** Directory for indexes and sidecars (relative to the config file). */
  cache_dir: z.string().min(1).optional(),
  /** Prometheus metrics (docs/metrics.md). */
  metrics: z
    .strictObject({
      /** Serve `/metrics` and record the series. */
      enabled: z.boolean().default(true),
      /** Serve `/metrics` on this port instead, without authentication (0: any free port). */
      port: z.number().int().min(0).max(65535).optional(),
      /** Address of that port; default: the HTTP host. */
      host: z.string().min(1).optional(),
    })
    .default({ enabled: true }),
  /** Serve the browser playground at `/ui` (docs/playground.md). */
  playground: z.boolean().default(true),
});

export type ConfigInput = z.input<typeof configSchema>;
export type IrserveConfig = z.output<typeof configSchema>;

/** JSON Schema of the config file, for editor completion (`irserve --print-config-schema`). */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://irserve.dev/schema/config.json',
    title: 'irserve configuration',
  };
}
