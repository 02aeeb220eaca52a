import type { CommandSpec, FlagSpecs } from '../cli-kit/index.js';
import type { CommandRun } from './command-run.js';
import {
  EVAL,
  EXPERIMENT,
  INIT,
  MCP,
  PRINT_CONFIG_SCHEMA,
  PULL,
  SERVE,
  TUNE,
  WARMUP,
} from './usage.js';

export interface Command<S extends FlagSpecs = FlagSpecs> {
  /** Usage, arguments and flags: `irserve <command> --help` prints it without loading `load`. */
  spec: CommandSpec<S>;
  /**
   * Loads the command's module only when the command runs, so `irserve --version`, `--help` and
   * a small config do not pay for modules they never use.
   */
  load: () => Promise<CommandRun<S>>;
}

/** One entry of the table, its flag types checked against its run function. */
function command<S extends FlagSpecs>(entry: Command<S>): Command {
  return entry as unknown as Command;
}

/**
 * The subcommands of `irserve` (a config path runs `serve`). Each module is imported on demand.
 *
 * @example
 * const { load } = COMMANDS.init!;
 * process.exitCode = (await (await load())({ flags, positionals, io }, process.env)) ?? 0;
 */
export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: command({ spec: SERVE, load: async () => (await import('./serve.js')).serveCommand }),
  warmup: command({ spec: WARMUP, load: async () => (await import('./warmup.js')).warmupCommand }),
  pull: command({ spec: PULL, load: async () => (await import('./pull.js')).pullCommand }),
  eval: command({ spec: EVAL, load: async () => (await import('./eval.js')).evalCommand }),
  experiment: command({
    spec: EXPERIMENT,
    load: async () => (await import('./experiment.js')).experimentCommand,
  }),
  tune: command({ spec: TUNE, load: async () => (await import('./tune.js')).tuneCommand }),
  init: command({ spec: INIT, load: async () => (await import('./init.js')).initCommand }),
  // The MCP SDK is loaded only for this command: the others' start-up pays nothing for it.
  mcp: command({ spec: MCP, load: async () => (await import('./mcp.js')).mcpCommand }),
};

/**
 * `irserve --print_config_schema` (also `--print-config-schema`). It imports every engine
 * module, which other commands may not need, so it too loads on demand.
 */
export const PRINT_SCHEMA: Command = command({
  spec: PRINT_CONFIG_SCHEMA,
  load: async () => (await import('./config-schema.js')).printConfigSchema,
});
