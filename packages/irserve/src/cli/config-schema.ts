import { pino } from '../prebundled/pino.js';
import { buildEngineTypes } from '../app/engine-catalog.js';
import { configJsonSchema } from '../config/json-schema.js';
import type { CommandRun } from './command-run.js';
import type { PRINT_CONFIG_SCHEMA } from './usage.js';

/**
 * `irserve --print_config_schema [--file_imports a.mjs,b.ts]`: the config file's JSON Schema
 * with the config schema of every engine this installation has (built-ins, installed
 * `@irserve/*` extras, and the named plugin files).
 *
 * @example
 * irserve --print_config_schema > irserve.schema.json
 */
export const printConfigSchema: CommandRun<typeof PRINT_CONFIG_SCHEMA.flags> = async ({
  flags,
  io,
}) => {
  const types = await buildEngineTypes({
    fileImports: (flags.file_imports ?? '').split(',').filter(Boolean),
    baseDir: process.cwd(),
    extra: [],
    discoverExtras: true,
    logger: pino({ level: 'silent' }),
  });
  const engines = types.names().map((name) => types.get(name));
  io.out(JSON.stringify(configJsonSchema(engines), null, 2));
};
