import { IrserveError } from '../errors.js';
import { UsageError } from './usage-error.js';

/**
 * Prints a failed command's error as one readable message (the stack only with IRSERVE_DEBUG)
 * and returns the exit code: 2 for usage and config mistakes, 1 for anything else.
 *
 * @example
 * process.exitCode = reportFailure(new UsageError('missing <config.json>'), process.env); // 2
 */
export function reportFailure(error: unknown, env: NodeJS.ProcessEnv): number {
  if (env.IRSERVE_DEBUG) console.error(error);
  if (
    error instanceof UsageError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    console.error(`irserve: ${(error as Error).message}\nRun "irserve --help" for usage.`);
    return 2;
  }
  if (error instanceof IrserveError && error.code === 'ERR_CONFIG') {
    console.error(`irserve: ${error.message}`);
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    error instanceof Error && error.cause instanceof Error
      ? `\n  caused by: ${error.cause.message}`
      : '';
  console.error(`irserve: ${message}${cause}`);
  return 1;
}
