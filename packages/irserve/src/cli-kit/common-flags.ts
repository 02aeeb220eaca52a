/**
 * Flags several commands take, declared once so they are spelled, parsed and explained alike:
 * `--threads N`, `--memory_budget SIZE`, `--seed N`, `--log_level L`, `--log_format F`. A
 * command passes what differs (its default, its range, what the threads do).
 *
 * @example
 * const FLAGS = {
 *   threads: commonFlags.threads({ default: 1, min: 1, help: 'parse the corpus on N worker threads (default 1)' }),
 *   memory_budget: commonFlags.memoryBudget({ help: 'memory the build may hold (e.g. 4G; default: a quarter of RAM)' }),
 * };
 */
import { flag } from './flag.js';

/** Log levels of the `irserve` commands' pino loggers. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** `auto`: pretty on a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;

interface CountOptions<D> {
  help: string;
  default?: D;
  min?: number;
  max?: number;
}

export const commonFlags = {
  /** `--threads N`: worker threads (the command says which, and what 0 means if allowed). */
  threads: <D extends number | undefined = undefined>(options: CountOptions<D>) =>
    flag.integer({ placeholder: 'N', ...options }),

  /** `--memory_budget SIZE`: bytes a build may hold in memory (`512M`, `4G`, `1.5GiB`). */
  memoryBudget: <D extends number | undefined = undefined>(options: {
    help: string;
    default?: D;
  }) => flag.bytes({ placeholder: 'SIZE', ...options }),

  /** `--seed N`: seeds sampling and training, so a build can be repeated. */
  seed: <D extends number | undefined = undefined>(options: { help: string; default?: D }) =>
    flag.integer({ placeholder: 'N', min: -Infinity, ...options }),

  /** `--log_level L`. */
  logLevel: (fallback: (typeof LOG_LEVELS)[number]) =>
    flag.choice(LOG_LEVELS, {
      placeholder: 'LEVEL',
      default: fallback,
      help: `${LOG_LEVELS.join(', ')} (default ${fallback})`,
    }),

  /** `--log_format F`. */
  logFormat: () =>
    flag.choice(LOG_FORMATS, {
      placeholder: 'FORMAT',
      default: 'auto',
      help: 'auto (default: pretty on a terminal, JSON otherwise), pretty, json',
    }),
};
