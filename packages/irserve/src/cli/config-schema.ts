import { pino } from '../prebundled/pino.js';
import { buildEngineTypes } from '../app/engine-catalog.js';
import { configJsonSchema } from '../config/json-schema.js';
import { UsageError } from './usage-error.js';

/**
 * `irserve --print-config-schema [--file_imports a.mjs,b.ts]`: the config file's JSON Schema
 * with the config schema of every engine this installation has (built-ins, installed
 * `@irserve/*` extras, and the named plugin files).
 *
 * @example
 * irserve --print-config-schema > irserve.schema.json
 */
export async function printConfigSchema(argv: string[]): Promise<number> {
  const [flag, list, ...extra] = argv;
  if (extra.length > 0 || (flag !== undefined && (flag !== '--file_imports' || !list)))
    throw new UsageError('usage: irserve --print-config-schema [--file_imports a.mjs,b.ts]');
  const types = await buildEngineTypes({
    fileImports: list ? list.split(',').filter(Boolean) : [],
    baseDir: process.cwd(),
    extra: [],
    discoverExtras: true,
    logger: pino({ level: 'silent' }),
  });
  const engines = types.names().map((name) => types.get(name));
  console.log(JSON.stringify(configJsonSchema(engines), null, 2));
  return 0;
}
