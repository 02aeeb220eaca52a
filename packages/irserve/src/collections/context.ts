import type { Logger } from 'pino';
import type { IsWritable } from './sidecar.js';

/** What readers and views need from the app: logging, progress style and sidecar placement. */
export interface ReaderContext {
  logger: Logger;
  /** Draw progress bars (a terminal is attached) instead of log lines. */
  interactive: boolean;
  /** The per-user fallback cache root (`$XDG_CACHE_HOME/irserve`). */
  userCacheDir: string;
  isWritable: IsWritable;
}
