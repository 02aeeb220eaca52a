import type { EngineClass } from '../engines/contract.js';
import { builtinEngines } from '../engines/builtin.js';
import { loadPluginFile } from '../plugins/file-imports.js';
import { EngineTypes } from '../registry/engine-types.js';

/**
 * The engine types of one app: built-ins, then `file_imports` in order, then classes passed in
 * code. A duplicate name anywhere is an error naming both origins.
 */
export async function buildEngineTypes(
  fileImports: readonly string[],
  baseDir: string,
  extra: readonly EngineClass[],
): Promise<EngineTypes> {
  const types = new EngineTypes();
  for (const engineClass of builtinEngines()) types.register(engineClass);
  for (const path of fileImports) {
    for (const engineClass of await loadPluginFile(path, baseDir))
      types.register(engineClass, path);
  }
  for (const engineClass of extra) types.register(engineClass, 'createApp options');
  return types;
}
