/**
 * Where an app keeps its indexes: the `cacheDir` option, else the config's `cache_dir`, else
 * `.irserve-cache` beside the config. Deployments often mount the config read-only (a Kubernetes
 * ConfigMap, a `:ro` volume of a compose file); there the default cannot be written, and the app
 * uses the user's cache instead, as sidecars do (collections/sidecar.ts). A directory the user
 * named is kept as it is: a failure to write there is theirs to see.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { hash16, userCacheRoot } from '../collections/sidecar.js';

const DEFAULT_NAME = '.irserve-cache';

/** Whether the directory (or, while it does not exist, its nearest parent) can be written. */
export type CanWrite = (dir: string) => Promise<boolean>;

export interface AppCacheDir {
  dir: string;
  /** Set when the default beside the config was not writable and `dir` is the user's cache. */
  fallbackFrom?: string;
}

/**
 * @example
 * await appCacheDir('/config', undefined, process.env)
 * // { dir: '/home/node/.cache/irserve/apps/1a2b3c4d5e6f7a8b', fallbackFrom: '/config/.irserve-cache' } on a read-only /config
 */
export async function appCacheDir(
  configDir: string,
  named: string | undefined,
  env: NodeJS.ProcessEnv,
  canWrite: CanWrite = nearestCanWrite,
): Promise<AppCacheDir> {
  if (named !== undefined) return { dir: resolve(configDir, named) };
  const beside = resolve(configDir, DEFAULT_NAME);
  if (await canWrite(beside)) return { dir: beside };
  return {
    dir: join(userCacheRoot(env, homedir()), 'apps', hash16(configDir)),
    fallbackFrom: beside,
  };
}

/**
 * `appCacheDir`'s directory, with a log line when the user's cache stands in for the default, and
 * a warning when a named one cannot be written (an engine that builds an index there will fail,
 * and a read-only mount makes Node's error say ENOENT).
 */
export async function chosenCacheDir(
  configDir: string,
  named: string | undefined,
  context: { env: NodeJS.ProcessEnv; logger: Logger; canWrite?: CanWrite },
): Promise<string> {
  const canWrite = context.canWrite ?? nearestCanWrite;
  const cache = await appCacheDir(configDir, named, context.env, canWrite);
  if (cache.fallbackFrom !== undefined)
    context.logger.info(
      { cache_dir: cache.dir, not_writable: cache.fallbackFrom },
      'the config directory is not writable: indexes are kept in the user cache (set cache_dir to choose)',
    );
  else if (named !== undefined && !(await canWrite(cache.dir)))
    context.logger.warn(
      { cache_dir: cache.dir },
      'cache_dir is not writable: engines that build an index there will fail to start',
    );
  return cache.dir;
}

/** Checks without creating anything: an app that never writes an index leaves no directory. */
async function nearestCanWrite(dir: string): Promise<boolean> {
  for (let at = dir; ; at = dirname(at)) {
    try {
      await access(at, constants.W_OK);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || dirname(at) === at) return false;
    }
  }
}
