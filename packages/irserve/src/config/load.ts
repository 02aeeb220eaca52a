import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from '../prebundled/zod.js';
import { IrserveError } from '../errors.js';
import { formatPath } from '../util/zod-issues.js';
import { configSchema, type IrserveConfig } from './schema.js';
import { closest } from '../util/suggest.js';
import { describeJsonSyntaxError } from './json-syntax.js';

/** A configuration that failed validation; `problems` has one line per error with its JSON path. */
export class ConfigError extends IrserveError {
  readonly problems: string[];
  constructor(problems: string[], source?: string) {
    const where = source ? ` in ${source}` : '';
    super('ERR_CONFIG', `invalid configuration${where}:\n  - ${problems.join('\n  - ')}`, {
      details: { problems },
    });
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Known keys of the object schema at `path`, for "did you mean" hints. */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = configSchema;
  for (const part of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject)
      schema = (schema.shape as Record<string, z.ZodType>)[String(part)] ?? z.never();
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    else return [];
  }
  schema = unwrap(schema);
  if (schema instanceof z.ZodArray) schema = unwrap(schema.element as z.ZodType);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (
    current instanceof z.ZodDefault ||
    current instanceof z.ZodOptional ||
    current instanceof z.ZodPipe
  ) {
    current =
      current instanceof z.ZodPipe ? (current.in as z.ZodType) : (current.unwrap() as z.ZodType);
  }
  return current;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? formatPath(issue.path) : '(root)';
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => {
        const hint = closest(key, knownKeysAt(issue.path));
        return `${where === '(root)' ? key : `${where}.${key}`}: unknown key${hint ? ` (did you mean "${hint}"?)` : ''}`;
      })
      .join('\n  - ');
  }
  return `${where}: ${issue.message}`;
}

/** Moves RoutIR's field names to irserve's: `cache_redis_*` become `cache_kv_*`. */
function applyAliases(config: IrserveConfig): IrserveConfig {
  const services = config.services.map((service) => ({
    ...service,
    cache_kv_url: service.cache_kv_url ?? service.cache_redis_url,
    cache_kv_kwargs: service.cache_kv_kwargs ?? service.cache_redis_kwargs,
  }));
  return {
    ...config,
    services,
    pipeline_cache_kv_url: config.pipeline_cache_kv_url ?? config.pipeline_cache_redis_url,
    pipeline_cache_kv_kwargs: config.pipeline_cache_kv_kwargs ?? config.pipeline_cache_redis_kwargs,
    relay_content_cache_kv_url:
      config.relay_content_cache_kv_url ?? config.relay_content_cache_redis_url,
    relay_content_cache_kv_kwargs:
      config.relay_content_cache_kv_kwargs ?? config.relay_content_cache_redis_kwargs,
  };
}

/** Checks that names are unique and references resolve; returns problem lines. */
function crossCheck(config: IrserveConfig): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  config.services.forEach((service, index) => {
    const first = seen.get(service.name);
    if (first !== undefined)
      problems.push(
        `services[${index}].name: "${service.name}" is already used by services[${first}]`,
      );
    else seen.set(service.name, index);
  });
  const collections = new Map<string, number>();
  config.collections.forEach((collection, index) => {
    const first = collections.get(collection.name);
    if (first !== undefined)
      problems.push(
        `collections[${index}].name: "${collection.name}" is already used by collections[${first}]`,
      );
    else collections.set(collection.name, index);
  });
  return problems;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Validates a parsed config object: every problem is reported at once with its JSON path,
 * defaults are applied, RoutIR aliases normalised, and the result frozen.
 */
export function validateConfig(input: unknown, source?: string): IrserveConfig {
  const { config, problems } = configProblems(input);
  if (!config) throw new ConfigError(problems, source);
  return config;
}

/**
 * The problems of a parsed config object, each a line with its JSON path, and the config when
 * there are none (defaults applied, RoutIR aliases normalised, frozen). The app adds what only
 * its engine classes can check (engine names, engine configs) to the same list.
 */
export function configProblems(input: unknown): { config?: IrserveConfig; problems: string[] } {
  const result = configSchema.safeParse(input);
  if (!result.success) return { problems: result.error.issues.map(describeIssue) };
  const problems = crossCheck(result.data);
  if (problems.length > 0) return { problems };
  return { config: deepFreeze(applyAliases(result.data)), problems: [] };
}

/** Reads and validates a config file; relative paths inside it resolve against `configDir`. */
export async function loadConfigFile(
  path: string,
): Promise<{ config: IrserveConfig; configDir: string }> {
  const { input, configDir } = await readConfigFile(path);
  return { config: validateConfig(input, path), configDir };
}

/**
 * Reads and parses a config file without validating it (`createApp` validates it together with
 * the engine configs); a syntax error names the file, line and column.
 */
export async function readConfigFile(path: string): Promise<{ input: unknown; configDir: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'file not found'
        : (error as Error).message;
    throw new ConfigError([`cannot read ${path}: ${reason}`]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([describeJsonSyntaxError(path, text, error as Error)]);
  }
  return { input: parsed, configDir: dirname(resolve(path)) };
}
