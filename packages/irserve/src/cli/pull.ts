import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { buildEngineTypes } from '../app/engine-catalog.js';
import { UsageError } from '../cli-kit/index.js';
import { loadConfigFile } from '../config/load.js';
import type { ModelKind } from '../models/choose-files.js';
import { ModelResolver } from '../models/model-resolver.js';
import { localModel } from '../models/model-source.js';
import type { ModelRequest } from '../models/types.js';
import type { CommandRun } from './command-run.js';
import { createCliLogger } from './logger.js';
import type { PULL } from './usage.js';

/** The models to fetch, grouped by the directory their relative paths resolve against. */
interface Wanted {
  configDir: string;
  /** Where the request comes from, for messages: the config's service, or the command line. */
  origin: string;
  request: ModelRequest;
}

/**
 * `irserve pull <config.json | hub id>... [--offline] [--kind auto]`: fetches every model a
 * config names (or the hub ids given) into the Hugging Face cache ahead of serving, asking the
 * hub for the newest commit of each revision; offline, it checks that the cache holds them.
 */
export const pullCommand: CommandRun<typeof PULL.flags> = async (
  { flags, positionals, io },
  env,
) => {
  if (positionals.length === 0) throw new UsageError('missing <config.json | hub id>');
  const { kind } = flags;
  const logger = await createCliLogger({ level: 'info', format: flags.log_format });
  const failures: string[] = [];
  const wanted: Wanted[] = [];
  for (const argument of positionals)
    wanted.push(...(await modelsOf(argument, kind, logger, failures)));
  const resolvers = new Map<string, Promise<ModelResolver>>();
  for (const { configDir, origin, request } of wanted) {
    try {
      const local = await localModel(configDir, request);
      if (local) {
        io.out(`${origin}: ${request.reference} is the local path ${local.path}`);
        continue;
      }
      if (!resolvers.has(configDir))
        resolvers.set(
          configDir,
          ModelResolver.create({
            configDir,
            logger,
            interactive: io.interactive === true,
            env,
            ...(flags.offline ? { offline: true } : {}),
          }),
        );
      const model = await (await resolvers.get(configDir)!).pull(request);
      const from = origin === request.reference ? '' : `${origin}: `;
      const verb = model.source === 'hub' ? 'downloaded to' : 'cached in';
      io.out(`${from}${model.label} ${model.format} ${verb} ${model.path}`);
    } catch (error) {
      failures.push(`${origin}: ${(error as Error).message}`);
    }
  }
  for (const failure of failures) logger.error(failure);
  return failures.length > 0 ? 1 : 0;
};

/** The models one argument stands for: those of a config's services, or one hub id. */
async function modelsOf(
  argument: string,
  kind: ModelKind,
  logger: Logger,
  failures: string[],
): Promise<Wanted[]> {
  if (!argument.endsWith('.json') || !existsSync(argument))
    return [
      {
        configDir: process.cwd(),
        origin: argument,
        request: { reference: argument, kind, field: '' },
      },
    ];
  const { config, configDir } = await loadConfigFile(argument);
  const types = await buildEngineTypes({
    fileImports: config.file_imports,
    baseDir: configDir,
    extra: [],
    discoverExtras: true,
    wanted: config.services.map((service) => service.engine),
    logger,
  });
  const wanted: Wanted[] = [];
  for (const service of config.services) {
    const origin = `${argument} service "${service.name}"`;
    try {
      for (const request of types.get(service.engine).models?.({ ...service.config }) ?? [])
        wanted.push({ configDir, origin, request });
    } catch (error) {
      failures.push(`${origin}: ${(error as Error).message}`);
    }
  }
  if (wanted.length === 0 && failures.length === 0)
    logger.info(`${argument} names no model (no service has a local model field)`);
  return wanted;
}
