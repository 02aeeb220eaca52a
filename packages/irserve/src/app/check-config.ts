import { ConfigError, configProblems } from '../config/load.js';
import type { IrserveConfig } from '../config/schema.js';
import { parseEngineConfig } from '../engines/engine-config.js';
import { FUSION_ENGINES } from '../engines/fusion/index.js';
import { IrserveError } from '../errors.js';
import type { EngineTypes } from '../registry/engine-types.js';
import { buildEngineTypes, type EngineTypeSources } from './engine-catalog.js';
import { importsFromConfig } from './imports-from-config.js';

/** A config that passed every check, with the engine classes it names loaded. */
export interface CheckedConfig {
  config: IrserveConfig;
  types: EngineTypes;
}

/** One service entry as written, as far as its engine can be checked. */
interface RawService {
  index: number;
  name: unknown;
  engine: string;
  config: unknown;
}

/**
 * Validates a config object in one round: the top-level and service keys, `server_imports`,
 * every service's engine name and engine config (against the schema its class declares, the
 * extras that define them loaded first), and `pipeline_aliases`. Every problem is reported in
 * one ERR_CONFIG, each line naming its path (`services[2].config.url: unknown key ...`).
 *
 * @example
 * const { config, types } = await checkConfig(input, { baseDir: '.', extra: [],
 *   discoverExtras: true, logger }, process.env);
 */
export async function checkConfig(
  input: unknown,
  sources: Omit<EngineTypeSources, 'fileImports' | 'wanted'>,
  env: NodeJS.ProcessEnv,
): Promise<CheckedConfig> {
  const { config, problems } = configProblems(input);
  if (config) problems.push(...collectProblems(() => importsFromConfig(config, env)));
  const services = rawServices(input);
  let types: EngineTypes;
  try {
    types = await buildEngineTypes({
      ...sources,
      fileImports: config?.file_imports ?? rawFileImports(input),
      wanted: services.map((service) => service.engine),
    });
  } catch (error) {
    // An extra or a file_imports module that cannot be loaded: reported with the rest.
    if (problems.length === 0) throw error;
    throw new ConfigError([...problems, (error as Error).message]);
  }
  problems.push(...services.flatMap((service) => engineProblems(service, types)));
  if (config) problems.push(...(await aliasProblems(config)));
  if (problems.length > 0 || !config) throw new ConfigError(problems);
  return { config, types };
}

/** The problem lines of a check that throws ERR_CONFIG; other errors pass through. */
function collectProblems(check: () => unknown): string[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

/** The service entries whose engine is named by a string, whatever else is wrong with them. */
function rawServices(input: unknown): RawService[] {
  const services = (input as { services?: unknown } | null)?.services;
  if (!Array.isArray(services)) return [];
  return services.flatMap((service: unknown, index) => {
    if (!service || typeof service !== 'object') return [];
    const { name, engine, config } = service as Record<string, unknown>;
    return typeof engine === 'string' ? [{ index, name, engine, config }] : [];
  });
}

function rawFileImports(input: unknown): string[] {
  const paths = (input as { file_imports?: unknown } | null)?.file_imports;
  return Array.isArray(paths) ? paths.filter((path) => typeof path === 'string') : [];
}

/** An unknown engine name, or each problem of the engine config, under the service's path. */
function engineProblems(service: RawService, types: EngineTypes): string[] {
  const where = `services[${service.index}]`;
  let engineClass;
  try {
    engineClass = types.get(service.engine);
  } catch (error) {
    return [`${where}.engine: ${(error as Error).message}`];
  }
  if (!engineClass.configSchema) return [];
  try {
    parseEngineConfig(engineClass.configSchema, service.config);
    return [];
  } catch (error) {
    const lines = (error as IrserveError).details?.problems;
    if (!Array.isArray(lines)) return [`${where}.config: ${(error as Error).message}`];
    return lines.map((line) => `${where}.${String(line)}`);
  }
}

/**
 * `pipeline_aliases` checked against the services' names (and the built-in fusion rules); the
 * pipeline parser is loaded only when there are aliases.
 */
async function aliasProblems(config: IrserveConfig): Promise<string[]> {
  if (Object.keys(config.pipeline_aliases).length === 0) return [];
  const { validatePipelineAliases } = await import('../pipeline/aliases.js');
  const names = [
    ...config.services.map((service) => service.name),
    ...FUSION_ENGINES.map((engineClass) => engineClass.name),
  ];
  try {
    validatePipelineAliases(config.pipeline_aliases, names);
    return [];
  } catch (error) {
    if (!(error instanceof IrserveError) || error.code !== 'ERR_CONFIG') throw error;
    const lines = (error.details?.problems as string[] | undefined) ?? [error.message];
    return lines.map((line) => {
      const named = /^"([^"]+)": (.*)$/s.exec(line);
      return named ? `pipeline_aliases.${named[1]}: ${named[2]}` : `pipeline_aliases: ${line}`;
    });
  }
}
