import { access } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type EngineClass, isEngineClass } from '../engines/contract.js';

const SUPPORTED = new Set(['.js', '.mjs', '.ts', '.mts']);

/** A file import that could not be loaded; the message names the path and the reason. */
export class PluginLoadError extends Error {
  constructor(path: string, reason: string, cause?: unknown) {
    super(
      `file_imports: cannot load ${path}: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'PluginLoadError';
  }
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  const extension = extname(path);
  if (extension === '.ts' || extension === '.mts') {
    // TypeScript plugins go through tsx, which strips types on Node versions that cannot.
    const { tsImport } = await import('tsx/esm/api');
    return (await tsImport(url, { parentURL: import.meta.url })) as Record<string, unknown>;
  }
  return (await import(url)) as Record<string, unknown>;
}

/**
 * Loads one plugin file and returns the engine classes it exports (every exported class with at
 * least one role method). Fails fast with the path and the reason. Plugins execute code: only
 * list files you trust.
 */
export async function loadPluginFile(path: string, baseDir: string): Promise<EngineClass[]> {
  const absolute = resolve(baseDir, path);
  if (!SUPPORTED.has(extname(absolute))) {
    throw new PluginLoadError(
      path,
      `unsupported extension "${extname(absolute)}" (use .js, .mjs or .ts)`,
    );
  }
  try {
    await access(absolute);
  } catch {
    throw new PluginLoadError(path, `file not found (resolved to ${absolute})`);
  }
  let exports: Record<string, unknown>;
  try {
    exports = await importModule(absolute);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new PluginLoadError(path, reason, error);
  }
  const classes = [...new Set(Object.values(exports))].filter(isEngineClass);
  if (classes.length === 0) {
    throw new PluginLoadError(
      path,
      'it exports no engine class (a class with searchBatch, scoreBatch, fuseBatch or decomposeQueryBatch)',
    );
  }
  return classes;
}
