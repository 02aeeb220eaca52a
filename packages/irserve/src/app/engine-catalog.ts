import type { Logger } from 'pino';
import type { EngineClass } from '../engines/contract.js';
import { builtinEngines } from '../engines/builtin.js';
import { findExtras, loadExtra } from '../plugins/extras.js';
import { loadPluginFile } from '../plugins/file-imports.js';
import { EngineTypes } from '../registry/engine-types.js';

export interface EngineTypeSources {
  fileImports: readonly string[];
  baseDir: string;
  /** Classes passed in code (`createApp(config, { engines })`). */
  extra: readonly EngineClass[];
  /** Whether installed `@irserve/*` extras are discovered and registered. */
  discoverExtras: boolean;
  logger: Logger;
}

/**
 * The engine types of one app: built-ins, installed extras, then `file_imports` in order, then
 * classes passed in code. A duplicate name anywhere is an error naming both origins.
 */
export async function buildEngineTypes(sources: EngineTypeSources): Promise<EngineTypes> {
  const types = new EngineTypes();
  for (const engineClass of builtinEngines()) types.register(engineClass);
  if (sources.discoverExtras) {
    for (const extra of await findExtras(sources.baseDir)) {
      const classes = await loadExtra(extra);
      for (const engineClass of classes) types.register(engineClass, extra.name);
      sources.logger.debug(
        { extra: extra.name, version: extra.version, engines: classes.map((c) => c.name) },
        'extra loaded',
      );
    }
  }
  for (const path of sources.fileImports) {
    for (const engineClass of await loadPluginFile(path, sources.baseDir))
      types.register(engineClass, path);
  }
  for (const engineClass of sources.extra) types.register(engineClass, 'createApp options');
  return types;
}
