/**
 * Config fields every API-backed engine shares (where the API is, how to authenticate, how long
 * to wait, how often to retry), their validation, and their translation to ApiHttpOptions.
 * Each engine extends `apiConfigFields` with its own fields in one strict zod object.
 */
import { z } from '../../prebundled/zod.js';
import { closest } from '../../util/suggest.js';
import { formatPath } from '../../util/zod-issues.js';
import { IrserveError } from '../../errors.js';
import type { EngineInit } from '../contract.js';
import type { ApiHttpOptions } from './api-http.js';

/** Shared fields; `timeout` and `max_retry_wait` are in seconds like the rest of the config. */
export const apiConfigFields = {
  base_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .describe('Where the API lives, e.g. `https://api.cohere.com` or `http://gpu-1:8000/v1`.'),
  model: z.string().min(1).describe('Model name sent to the API.'),
  api_key: z
    .string()
    .min(1)
    .optional()
    .describe('The key itself (prefer `api_key_env`: config files get shared).'),
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional()
    .describe('Name of the environment variable that holds the key.'),
  headers: z
    .record(z.string().min(1), z.string())
    .optional()
    .describe("Extra request headers (Azure's `api-key`, organisation ids, ...)."),
  timeout: z
    .number()
    .positive()
    .max(3600)
    .default(60)
    .describe('Deadline of one API call, in seconds.'),
  retries: z
    .int()
    .min(0)
    .max(10)
    .default(3)
    .describe('Retries after a 429, a 5xx or a broken connection.'),
  max_retry_wait: z
    .number()
    .min(0)
    .max(600)
    .default(10)
    .describe('Longest wait before a retry, in seconds (a longer Retry-After is cut to it).'),
  concurrency: z
    .int()
    .min(1)
    .max(1024)
    .default(8)
    .describe('Upstream calls in flight at once for this service.'),
};

/** The shared part of a parsed config. */
export interface ApiConfig {
  base_url: string;
  api_key?: string | undefined;
  api_key_env?: string | undefined;
  headers?: Record<string, string> | undefined;
  timeout: number;
  retries: number;
  max_retry_wait: number;
  concurrency: number;
}

/**
 * Validates an engine's `config` with `schema`; throws ERR_CONFIG naming every bad field
 * (`config.timeout: ...`) and suggesting the closest key for an unknown one. Values never
 * appear in the message: a misplaced key must not leak through an error.
 *
 * @example
 * parseApiConfig(schema, { base_url: 'http://x/v1', model: 'm' }).retries // 3
 */
export function parseApiConfig<S extends z.ZodObject>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const known = Object.keys(schema.shape);
  const problems: string[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push(unknownKey(key, known));
      continue;
    }
    const where = issue.path.length > 0 ? `config.${formatPath(issue.path)}` : 'config';
    problems.push(`${where}: ${issue.message}`);
  }
  throw new IrserveError('ERR_CONFIG', problems.join('; '), { details: { problems } });
}

function unknownKey(key: string, known: readonly string[]): string {
  const hint = closest(key, known);
  return `config.${key}: unknown key${hint ? ` (did you mean "${hint}"?)` : ''}`;
}

/**
 * The API key: `api_key`, or the variable named by `api_key_env` (which must be set), or none.
 *
 * @example
 * resolveApiKey({ api_key_env: 'COHERE_API_KEY' }, process.env)
 */
export function resolveApiKey(
  config: Pick<ApiConfig, 'api_key' | 'api_key_env'>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (config.api_key !== undefined && config.api_key_env !== undefined)
    throw new IrserveError(
      'ERR_CONFIG',
      'config.api_key_env: give api_key or api_key_env, not both',
    );
  if (config.api_key_env === undefined) return config.api_key;
  const value = env[config.api_key_env];
  if (!value)
    throw new IrserveError(
      'ERR_CONFIG',
      `config.api_key_env: environment variable ${config.api_key_env} is not set or empty`,
    );
  return value;
}

/** ApiHttpOptions for a parsed config, naming `provider` and the service in errors. */
export function httpOptions(
  config: ApiConfig,
  provider: string,
  init: Pick<EngineInit, 'name' | 'context'>,
): ApiHttpOptions {
  return {
    baseUrl: config.base_url,
    provider,
    service: init.name,
    apiKey: resolveApiKey(config),
    headers: config.headers,
    timeoutMs: config.timeout * 1000,
    retries: config.retries,
    maxRetryWaitMs: config.max_retry_wait * 1000,
    concurrency: config.concurrency,
    logger: init.context.logger,
  };
}
