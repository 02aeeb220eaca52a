import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type EngineClass, isEngineClass } from '../engines/contract.js';

/** The npm scope whose installed packages are irserve extras (`@irserve/dense`, ...). */
const EXTRAS_SCOPE = '@irserve';

/** An installed extra: a package of the scope whose package.json names an engines module. */
export interface ExtraPackage {
  name: string;
  version: string;
  /** Absolute path of the module exporting the extra's engine classes. */
  enginesModule: string;
  /**
   * The engine names its package.json declares (`irserve.engineNames`), when it does: an extra
   * none of whose names a config uses is then not imported (its model runtimes and drivers
   * cost start-up time). An extra without them is imported whenever extras are looked for.
   */
  engineNames?: readonly string[];
}

/** An installed extra that could not be loaded; the message names the package and the reason. */
export class ExtraLoadError extends Error {
  constructor(name: string, reason: string, cause?: unknown) {
    super(`extra ${name}: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = 'ExtraLoadError';
  }
}

/** `dir` and its ancestors, nearest first. */
function ancestors(dir: string): string[] {
  const dirs = [resolve(dir)];
  for (let parent = dirname(dirs[0]!); parent !== dirs.at(-1); parent = dirname(parent)) {
    dirs.push(parent);
  }
  return dirs;
}

async function listScope(nodeModules: string): Promise<string[]> {
  try {
    const entries = await readdir(join(nodeModules, EXTRAS_SCOPE));
    return entries.filter((entry) => !entry.startsWith('.')).sort();
  } catch {
    return [];
  }
}

async function readExtra(packageDir: string): Promise<ExtraPackage | undefined> {
  let manifest: {
    name?: unknown;
    version?: unknown;
    irserve?: { engines?: unknown; engineNames?: unknown };
  };
  try {
    manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const engines = manifest.irserve?.engines;
  if (typeof manifest.name !== 'string' || typeof engines !== 'string') return undefined;
  const names = manifest.irserve?.engineNames;
  const declared = Array.isArray(names) && names.every((name) => typeof name === 'string');
  return {
    name: manifest.name,
    version: typeof manifest.version === 'string' ? manifest.version : '0.0.0',
    enginesModule: resolve(await realpath(packageDir), engines),
    ...(declared ? { engineNames: names } : {}),
  };
}

/**
 * Finds installed extras the way Node resolves packages: in `node_modules/@irserve` of the core
 * package's directory and its ancestors, then of `fromDir` and its ancestors. The nearest copy
 * of a package wins, so a project that installs its own extra overrides a global one.
 */
export async function findExtras(fromDir: string): Promise<ExtraPackage[]> {
  const coreDir = dirname(fileURLToPath(import.meta.url));
  const found = new Map<string, ExtraPackage>();
  for (const dir of [...ancestors(coreDir), ...ancestors(fromDir)]) {
    const nodeModules = join(dir, 'node_modules');
    for (const entry of await listScope(nodeModules)) {
      const extra = await readExtra(join(nodeModules, EXTRAS_SCOPE, entry));
      if (extra && !found.has(extra.name)) found.set(extra.name, extra);
    }
  }
  return [...found.values()];
}

/**
 * Imports an extra's engines module: its `engines` export (an array) or, failing that, every
 * exported engine class. A module that cannot be imported fails the start with the reason.
 */
export async function loadExtra(extra: ExtraPackage): Promise<EngineClass[]> {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(extra.enginesModule).href)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new ExtraLoadError(
      extra.name,
      `cannot load ${extra.enginesModule} (is the package built?): ${reason}`,
      error,
    );
  }
  const listed = Array.isArray(exports.engines) ? exports.engines : Object.values(exports);
  return [...new Set(listed)].filter(isEngineClass);
}
