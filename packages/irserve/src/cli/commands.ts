import { EVAL_USAGE, INIT_USAGE, MCP_USAGE, SERVE_USAGE, WARMUP_USAGE } from './usage.js';

/** A command's entry point: takes the arguments after its name, returns the exit code. */
export type CommandRun = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>;

export interface Command {
  /** Printed by `irserve <command> --help`. */
  usage: string;
  /**
   * Loads the command's module only when the command runs, so `irserve --version`, `--help` and
   * a small config do not pay for modules they never use.
   */
  load: () => Promise<CommandRun>;
}

/**
 * The subcommands of `irserve` (a config path runs `serve`). Each module is imported on demand.
 *
 * @example
 * const run = await COMMANDS.init!.load();
 * process.exitCode = await run(['docs/'], process.env);
 */
export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    usage: SERVE_USAGE,
    load: async () => (await import('./serve.js')).serveCommand,
  },
  warmup: {
    usage: WARMUP_USAGE,
    load: async () => (await import('./warmup.js')).warmupCommand,
  },
  eval: {
    usage: EVAL_USAGE,
    load: async () => (await import('./eval.js')).runEvalCommand,
  },
  init: {
    usage: INIT_USAGE,
    load: async () => (await import('./init.js')).initCommand,
  },
  // The MCP SDK is loaded only for this command: the others' start-up pays nothing for it.
  mcp: {
    usage: MCP_USAGE,
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
};

/** Whether the arguments ask for help (`--help` or `-h` anywhere before a `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
