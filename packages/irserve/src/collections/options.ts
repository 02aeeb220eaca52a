/** What building the collections needs from the app (see `createCollections`). */
import type { Logger } from 'pino';
import type { IsWritable } from './sidecar.js';

export interface CollectionsOptions {
  logger: Logger;
  /** The app's cache directory (not used for sidecars: they follow the rules in docs/collections.md). */
  cacheDir: string;
  /** Draw progress bars instead of log lines. */
  interactive: boolean;
  /** The config file's directory: relative paths in the config resolve against it. */
  baseDir: string;
  /** Per-user fallback for sidecars; default `$XDG_CACHE_HOME/irserve` (or `~/.cache/irserve`). */
  userCacheDir?: string;
  /** Whether a directory accepts new files (tests inject this: root can write anywhere). */
  isWritable?: IsWritable;
}
