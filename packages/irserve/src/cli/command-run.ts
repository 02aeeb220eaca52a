import type { CommandInput, FlagSpecs } from '../cli-kit/index.js';

/**
 * A subcommand's work on its parsed command line; resolves to the exit code (default 0). Each
 * subcommand module exports one; `commands.ts` loads them on demand.
 */
export type CommandRun<S extends FlagSpecs = FlagSpecs> = (
  input: CommandInput<S>,
  env: NodeJS.ProcessEnv,
) => Promise<number | void>;
