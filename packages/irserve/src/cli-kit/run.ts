/**
 * Runs a command described by a `CommandSpec`: `--help` anywhere prints its help; the command
 * line is parsed and checked; the action runs; every failure is one readable line on stderr,
 * never a stack trace (IRSERVE_DEBUG=1 adds it). Exit codes, the same for every irserve command:
 * 0 done, 1 failed, 2 a usage or config mistake.
 */
import { IrserveError } from '../errors.js';
import { formatHelp, usageHint, type CommandSpec } from './command.js';
import { listing, type FlagSpecs, type FlagValues } from './flag.js';
import { defaultIo, type CliIo } from './io.js';
import { parseCommandLine, wantsHelp } from './parse.js';
import { UsageError } from './usage-error.js';

/** Exit codes of irserve's commands. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface CommandInput<S extends FlagSpecs> {
  flags: FlagValues<S>;
  positionals: string[];
  io: CliIo;
}

/** The command's work; resolves to its exit code (default 0). */
export type CommandAction<S extends FlagSpecs> = (input: CommandInput<S>) => Promise<number | void>;

export interface RunOptions {
  io?: CliIo;
  env?: NodeJS.ProcessEnv;
}

/** Checks the count of positional arguments against the spec's list. */
function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  if (spec.checksPositionals) return;
  const wanted = (spec.positionals ?? []).map((p) => p.name);
  if (positionals.length === wanted.length) return;
  if (wanted.length === 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const got = `${positionals.length} argument${positionals.length === 1 ? '' : 's'}`;
  throw new UsageError(`expected ${listing(wanted, 'and')}, got ${got}`);
}

/**
 * Parses `argv` (the arguments after the command's name) against `spec` and runs `action`;
 * resolves to the exit code.
 *
 * @example
 * process.exitCode = await runCommand(BUILD_INDEX, process.argv.slice(2), async ({ flags, positionals, io }) => {
 *   io.out(summary(await buildIndex({ inputDir: positionals[0]!, ...flags })));
 * });
 */
export async function runCommand<S extends FlagSpecs>(
  spec: CommandSpec<S>,
  argv: readonly string[],
  action: CommandAction<S>,
  { io = defaultIo(), env = process.env }: RunOptions = {},
): Promise<number> {
  if (wantsHelp(argv)) {
    io.out(formatHelp(spec));
    return EXIT.ok;
  }
  try {
    const { flags, positionals } = parseCommandLine(spec.flags, argv);
    checkPositionals(spec, positionals);
    return (await action({ flags, positionals, io })) ?? EXIT.ok;
  } catch (error) {
    return reportFailure(error, { name: spec.name, hint: usageHint(spec) }, io, env);
  }
}

/**
 * Prints a failed command's error as one readable message (the stack only with IRSERVE_DEBUG)
 * and returns the exit code: 2 for usage and config mistakes (a usage mistake with `hint`
 * after it), 1 for anything else.
 *
 * @example
 * return reportFailure(error, { name: 'irserve', hint: 'Run "irserve --help" for usage.' }, io, env);
 */
export function reportFailure(
  error: unknown,
  command: { name: string; hint: string },
  io: CliIo,
  env: NodeJS.ProcessEnv,
): number {
  if (env.IRSERVE_DEBUG) io.err(String((error as Error)?.stack ?? error));
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) {
    io.err(`${command.name}: ${message}\n${command.hint}`);
    return EXIT.usage;
  }
  if (error instanceof IrserveError && error.code === 'ERR_CONFIG') {
    io.err(`${command.name}: ${message}`);
    return EXIT.usage;
  }
  io.err(`${command.name}: ${message}${causeLines(error, message)}`);
  return EXIT.failed;
}

/**
 * The `caused by:` lines of an error's cause chain, each only where it adds something: a cause
 * whose message is already part of what was printed (a wrapper that repeats it) is left out.
 */
function causeLines(error: unknown, message: string): string {
  let printed = message;
  let lines = '';
  const seen = new Set<unknown>([error]);
  for (let cause = (error as Error).cause; cause instanceof Error; cause = cause.cause) {
    if (seen.has(cause)) break;
    seen.add(cause);
    if (cause.message === '' || printed.includes(cause.message)) continue;
    lines += `\n  caused by: ${cause.message}`;
    printed += `\n${cause.message}`;
  }
  return lines;
}
