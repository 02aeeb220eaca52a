/**
 * A logger whose lines are kept in memory, for tests that assert on what an engine logged (a
 * warning about a stale sidecar, the start-up line saying how an index is served).
 */
import type { Level, Logger } from 'pino';
import { pino } from '../prebundled/pino.js';

/** One logged line, as pino writes it, with the level as its name (`'warn'`, not 40). */
export interface LogRecord {
  level: Level;
  msg: string;
  [field: string]: unknown;
}

/** The lines a logger wrote, in order. */
export interface CapturedLogs {
  /** Every line so far. */
  readonly records: readonly LogRecord[];
  /** The lines logged at `level`. */
  at(level: Level): LogRecord[];
  /** The messages logged at `level`, or at any level when omitted. */
  messages(level?: Level): string[];
  /** The first line whose message contains `match` (a string) or matches it (a RegExp). */
  find(match: string | RegExp): LogRecord | undefined;
  /** Forgets the lines so far (to assert on what one step logs). */
  clear(): void;
}

/**
 * A pino logger at `level` (default `debug`) that keeps what it writes instead of printing it.
 *
 * @example
 * const { logger, logs } = captureLogs();
 * logger.warn({ path: 'x' }, 'stale sidecar');
 * logs.messages('warn'); // ['stale sidecar']
 */
export function captureLogs(level: Level | 'silent' = 'debug'): {
  logger: Logger;
  logs: CapturedLogs;
} {
  const records: LogRecord[] = [];
  const logger = pino(
    { level, formatters: { level: (label) => ({ level: label }) } },
    { write: (line: string) => records.push(JSON.parse(line) as LogRecord) },
  );
  const logs: CapturedLogs = {
    records,
    at: (wanted) => records.filter((record) => record.level === wanted),
    messages: (wanted) =>
      records.filter((record) => wanted === undefined || record.level === wanted).map((r) => r.msg),
    find: (match) =>
      records.find((record) =>
        typeof match === 'string' ? String(record.msg).includes(match) : match.test(record.msg),
      ),
    clear: () => {
      records.length = 0;
    },
  };
  return { logger, logs };
}
