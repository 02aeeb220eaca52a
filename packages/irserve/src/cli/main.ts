import { readFileSync } from 'node:fs';
import { IrserveError } from '../errors.js';
import { runEvalCommand } from './eval.js';
import { serveCommand, UsageError } from './serve.js';
import { USAGE } from './usage.js';
import { warmupCommand } from './warmup.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * The `irserve` command. Returns the exit code; prints errors as readable messages, never stack
 * traces (set IRSERVE_DEBUG=1 for those).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === '--help' || first === '-h') {
      console.log(USAGE);
      return first === undefined ? 2 : 0;
    }
    if (first === '--version' || first === '-v') {
      console.log(version());
      return 0;
    }
    if (first === '--print-config-schema') {
      // Loaded on demand: it imports every engine module, which other commands may not need.
      const { printConfigSchema } = await import('./config-schema.js');
      return await printConfigSchema(rest);
    }
    if (first === 'warmup') return await warmupCommand(rest);
    if (first === 'eval') return await runEvalCommand(rest);
    return await serveCommand(argv, env);
  } catch (error) {
    return reportFailure(error, env);
  }
}

function reportFailure(error: unknown, env: NodeJS.ProcessEnv): number {
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
