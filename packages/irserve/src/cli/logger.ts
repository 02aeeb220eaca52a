import type { Logger } from 'pino';
import { pino } from '../prebundled/pino.js';
import { LOG_FORMATS, LOG_LEVELS, UsageError } from '../cli-kit/index.js';

export interface CliLoggerOptions {
  level: string;
  /** `auto`: pretty when stdout is a terminal, JSON lines otherwise (for log collectors). */
  format: string;
  /** Whether stdout is a terminal (default: process.stdout.isTTY). */
  tty?: boolean;
  /** Where lines go (default: stdout). */
  destination?: NodeJS.WritableStream;
}

/**
 * The command's logger: readable colored lines on a terminal (pino-pretty, loaded only then),
 * one JSON object per line when piped or under a supervisor.
 *
 * @example
 * const logger = await createCliLogger({ level: 'info', format: 'auto' });
 */
export async function createCliLogger(options: CliLoggerOptions): Promise<Logger> {
  if (!(LOG_LEVELS as readonly string[]).includes(options.level))
    throw new UsageError(`--log_level must be one of ${LOG_LEVELS.join(', ')}`);
  if (!(LOG_FORMATS as readonly string[]).includes(options.format))
    throw new UsageError(`--log_format must be one of ${LOG_FORMATS.join(', ')}`);
  const tty = options.tty ?? Boolean(process.stdout.isTTY);
  if (options.format === 'json' || (options.format === 'auto' && !tty))
    return options.destination
      ? pino({ level: options.level }, options.destination)
      : pino({ level: options.level });
  const { default: pretty } = await import('pino-pretty');
  // Synchronous, in this thread: a worker-thread transport would cost start-up time, and a
  // terminal is never the bottleneck of a server.
  const stream = pretty({
    colorize: tty,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    ...(options.destination ? { destination: options.destination } : {}),
  });
  return pino({ level: options.level }, stream);
}
