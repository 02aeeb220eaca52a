import type { IrserveError } from '../errors.js';

/**
 * Codes logged at debug per request: the state behind them is logged once when it changes
 * (a remote unreachable and back, a full queue, a drain), and a line with a stack per failed
 * request would flood the log (15,000 lines in 10 s with one imported instance down).
 */
const QUIET = new Set([
  'ERR_UPSTREAM',
  'ERR_UPSTREAM_TIMEOUT',
  'ERR_TIMEOUT',
  'ERR_SHUTTING_DOWN',
  'ERR_CLIENT_CLOSED',
]);

/** The log level of a failed request: error for a 5xx worth a look, debug for the quiet codes. */
export function failureLevel(error: IrserveError): 'error' | 'debug' | undefined {
  if (QUIET.has(error.code)) return 'debug';
  return error.httpStatus >= 500 ? 'error' : undefined;
}

/** An absolute POSIX or Windows path not inside a URL: its directories are dropped. */
const ABSOLUTE_PATH = /(?<![\w:/.-])(?:\/|[A-Za-z]:\\)(?:[^\s'"`/\\:]+[/\\])+([^\s'"`/\\:,;)]+)/g;

/**
 * `message` with the directories of absolute paths left out (`/srv/data/corpus.jsonl` becomes
 * `corpus.jsonl`): a 5xx answer must not show the server's file layout; the log keeps it whole.
 *
 * @example
 * redactPaths("ENOENT: open '/srv/data/corpus.jsonl'"); // "ENOENT: open 'corpus.jsonl'"
 */
export function redactPaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, '$1');
}
