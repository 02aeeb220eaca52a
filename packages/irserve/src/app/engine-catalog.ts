import type { Logger } from 'pino';
import type { EngineClass } from '../engines/contract.js';
import { BUILTIN_ENGINES } from '../engines/builtin.js';
import { EngineTypes } from '../registry/engine-types.js';

export interface EngineTypeSources {
  fileImports: readonly string[];
  baseDir: string;
  /** Classes passed in code (`createApp(config, { engines })`). */
  extra: readonly EngineClass[];
  /** Whether installed `@irserve/*` extras are discovered and registered. */
  discoverExtras: boolean;
  /**
   * Engine names the config uses. Extras are discovered only when one of them is not built in,
   * imported or passed in code: loading every installed extra (model runtimes among them) would
   * cost start-up time for engines nobody asked for.
   */
  wanted?: readonly string[];
  logger: Logger;
}

/**
 * The engine types of one app: built-ins (loaded when the config uses them), installed extras
 * (when the config names an engine that is not built in), then `file_imports` in order, then
 * classes passed in code. A duplicate name anywhere is an error naming both origins. The plugin
 * loaders are imported only when there is something to load.
 *
 * @example
 * const types = await buildEngineTypes({ fileImports: [], baseDir: '.', extra: [],
 *   discoverExtras: true, wanted: ['BM25'], logger });
 */
export async function buildEngineTypes(sources: EngineTypeSources): Promise<EngineTypes> {
  const types = new EngineTypes();
  for (const [name, load] of Object.entries(BUILTIN_ENGINES)) {
    if (sources.wanted === undefined || sources.wanted.includes(name)) types.register(await load());
    else types.reserve(name);
  }
  const unresolved = unresolvedNames(sources);
  if (sources.discoverExtras && (unresolved === undefined || unresolved.size > 0))
    await registerExtras(types, sources, unresolved);
  if (sources.fileImports.length > 0) {
    const { loadPluginFile } = await import('../plugins/file-imports.js');
    for (const path of sources.fileImports) {
      for (const engineClass of await loadPluginFile(path, sources.baseDir))
        types.register(engineClass, path);
    }
  }
  for (const engineClass of sources.extra) types.register(engineClass, 'createApp options');
  return types;
}

/**
 * The engine names the config uses that are neither built in nor passed in code (they may come
 * from an extra or from `file_imports`, whose names are known only once loaded, after the
 * extras); `undefined` when the config's names are not known (every engine is wanted).
 */
function unresolvedNames(sources: EngineTypeSources): Set<string> | undefined {
  if (sources.wanted === undefined) return undefined;
  const given = new Set(sources.extra.map((engineClass) => engineClass.name));
  return new Set(
    sources.wanted.filter((name) => !Object.hasOwn(BUILTIN_ENGINES, name) && !given.has(name)),
  );
}

/** Registers the installed extras that may define one of `names` (every one when undefined). */
async function registerExtras(
  types: EngineTypes,
  sources: EngineTypeSources,
  names: ReadonlySet<string> | undefined,
): Promise<void> {
  const { findExtras, loadExtra } = await import('../plugins/extras.js');
  for (const extra of await findExtras(sources.baseDir)) {
    const log = { extra: extra.name, version: extra.version };
    if (names && extra.engineNames && !extra.engineNames.some((name) => names.has(name))) {
      sources.logger.debug(log, 'extra not loaded: the config uses none of its engines');
      types.offer(extra.engineNames, extra.name);
      continue;
    }
    const classes = await loadExtra(extra);
    for (const engineClass of classes) types.register(engineClass, extra.name);
    const loaded = classes.map((c) => c.name);
    sources.logger.debug({ ...log, engines: loaded }, 'extra loaded');
    if (extra.engineNames && !sameNames(extra.engineNames, loaded))
      sources.logger.warn(
        { ...log, declared: extra.engineNames, engines: loaded },
        'extra declares other engine names (irserve.engineNames in its package.json) than its engines module exports: a config naming an undeclared one will not find it',
      );
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');
}
