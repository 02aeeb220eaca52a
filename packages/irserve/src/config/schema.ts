import { z } from '../prebundled/zod.js';
import { collectionConfigSchema } from '../collections/config.js';
import { compatConfigSchema } from './compat-schema.js';
import { mcpConfigSchema } from './mcp-schema.js';
import { serviceConfigSchema } from './service-schema.js';

/** A `server_imports` entry: a base URL, or an object with relay settings. */
export const serverImportSchema = z.union([
  z.url(),
  z.strictObject({
    endpoint: z.url().describe("Base URL of the remote's HTTP API, e.g. http://gpu-1:8000."),
    grpc_endpoint: z
      .string()
      .min(1)
      .optional()
      .describe("host:port of the remote's gRPC API (grpc:// or grpcs:// prefixes accepted)."),
    api_key: z.string().optional().describe("The remote's bearer key (prefer api_key_env)."),
    api_key_env: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Name of an environment variable holding the remote's key (keeps secrets out of the file).",
      ),
    transport: z
      .enum(['auto', 'grpc', 'rest'])
      .default('auto')
      .describe(
        'auto: gRPC when the remote advertises it and answers, else REST; grpc or rest to force one.',
      ),
    timeout: z
      .number()
      .positive()
      .default(600)
      .describe('Deadline of one relayed call, in seconds.'),
    retries: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(10)
      .describe('Retries of a relayed call after a connection error, a timeout or a 503.'),
    tls: z.boolean().default(false).describe('Use TLS for gRPC.'),
  }),
]);

/** The configuration file (spec "Configuration file"), plus irserve's server settings. */
export const configSchema = z.strictObject({
  timeout: z
    .number()
    .positive()
    .max(86_400)
    .default(60)
    .describe(
      'Seconds a request may take in a service unless the service or the request says otherwise.',
    ),
  services: z
    .array(serviceConfigSchema)
    .default([])
    .describe(
      'The engines to serve: each a named service with its engine class, engine config, cache and batching settings.',
    ),
  collections: z
    .array(collectionConfigSchema)
    .default([])
    .describe(
      'The document collections to serve: content lookup (POST /content) and the text rerank stages read.',
    ),
  server_imports: z
    .array(serverImportSchema)
    .default([])
    .describe(
      'Other irserve or RoutIR instances whose services and collections are mirrored here (a base URL, or an object with relay settings).',
    ),
  file_imports: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Plugin files (.js, .mjs, .ts) whose exported engine classes become engine types; paths relative to this file. They run code: list only files you trust.',
    ),
  pipeline_aliases: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .describe('Named sub-pipelines: alias name to a pipeline expression, usable as a stage name.'),
  pipeline_cache: z
    .number()
    .int()
    .min(-1)
    .default(-1)
    .describe('Entries of the cache of whole pipeline results; -1 or 0 disables it (default).'),
  pipeline_cache_ttl: z
    .number()
    .min(-1)
    .default(600)
    .describe('Lifetime of a pipeline cache entry in seconds; -1: no expiry.'),
  pipeline_cache_kv_url: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Redis-protocol URL (redis://host:6379/0) of an external store for the pipeline cache instead of memory.',
    ),
  pipeline_cache_kv_kwargs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Client options of that store (password, username, db, tls, ...).'),
  pipeline_cache_redis_url: z
    .string()
    .min(1)
    .optional()
    .describe("RoutIR's name of pipeline_cache_kv_url."),
  pipeline_cache_redis_kwargs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("RoutIR's name of pipeline_cache_kv_kwargs."),
  dynamic_pipeline: z
    .boolean()
    .default(true)
    .describe(
      'Accepted for RoutIR compatibility; irserve always runs the pipelines requests send.',
    ),
  relay_cache: z
    .number()
    .int()
    .min(-1)
    .default(1024)
    .describe('Cache of relayed (imported) search/score/fuse/decompose services.'),
  relay_cache_ttl: z
    .number()
    .min(-1)
    .default(600)
    .describe('Lifetime of a relay cache entry in seconds; -1: no expiry.'),
  relay_content_cache: z
    .number()
    .int()
    .min(-1)
    .default(-1)
    .describe(
      'Cache of content looked up in imported collections (disabled by default, as in the spec).',
    ),
  relay_content_cache_ttl: z
    .number()
    .min(-1)
    .default(600)
    .describe('Lifetime of a relay content cache entry in seconds; -1: no expiry.'),
  relay_content_cache_kv_url: z
    .string()
    .min(1)
    .optional()
    .describe('Redis-protocol URL of an external store for relayed content.'),
  relay_content_cache_kv_kwargs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Client options of that store.'),
  relay_content_cache_redis_url: z
    .string()
    .min(1)
    .optional()
    .describe("RoutIR's name of relay_content_cache_kv_url."),
  relay_content_cache_redis_kwargs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("RoutIR's name of relay_content_cache_kv_kwargs."),
  max_limit: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe('Largest `limit` a request may ask for.'),
  body_limit: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024)
    .describe('Largest request body in bytes.'),
  request_timeout: z
    .number()
    .positive()
    .default(120)
    .describe(
      'Seconds a client may take to send one HTTP request, headers and body; past it the connection is answered 408 and closed.',
    ),
  max_connections: z
    .number()
    .int()
    .min(1)
    .default(4096)
    .describe('HTTP connections open at once; a connection past it is closed as it arrives.'),
  compat: compatConfigSchema
    .default({
      embeddings: {},
      rerank: {},
      sparse_embeddings: {},
      expose_services: true,
      tei: {},
    })
    .describe('Provider-compatible routes (OpenAI, Cohere, Jina, TEI): model names to services.'),
  mcp: mcpConfigSchema
    .default({ enabled: true, allowed_origins: [], allowed_hosts: [] })
    .describe('The MCP endpoint `/mcp` (docs/mcp.md).'),
  cache_dir: z
    .string()
    .min(1)
    .optional()
    .describe('Directory for indexes and sidecars (relative to the config file).'),
  metrics: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Serve `/metrics` and record the series.'),
      port: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .optional()
        .describe(
          'Serve `/metrics` on this port instead, without authentication (0: any free port).',
        ),
      host: z.string().min(1).optional().describe('Address of that port; default: the HTTP host.'),
    })
    .default({ enabled: true })
    .describe('Prometheus metrics (docs/metrics.md).'),
  playground: z
    .boolean()
    .default(true)
    .describe('Serve the browser playground at `/ui` (docs/playground.md).'),
});

export type ConfigInput = z.input<typeof configSchema>;
export type IrserveConfig = z.output<typeof configSchema>;
