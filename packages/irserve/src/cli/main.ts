import { readFileSync } from 'node:fs';
import { defaultIo, formatHelp, runCommand, wantsHelp, type CliIo } from '../cli-kit/index.js';
import { COMMANDS, PRINT_SCHEMA, type Command } from './commands.js';
import { USAGE } from './usage.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The subcommand `argv` names, and its arguments; a config path (anything else) serves. */
function commandOf(argv: readonly string[]): { command: Command; args: string[] } {
  const [first = '', ...rest] = argv;
  if (first === '--print_config_schema' || first === '--print-config-schema')
    return { command: PRINT_SCHEMA, args: rest };
  const named = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  return named ? { command: named, args: rest } : { command: COMMANDS.serve!, args: [...argv] };
}

/**
 * The `irserve` command. Returns the exit code (0 done, 1 failed, 2 a usage or config mistake);
 * prints errors as readable messages, never stack traces (set IRSERVE_DEBUG=1 for those).
 * Modules load on demand: `--version` and `--help` import nothing but the usage texts.
 *
 * @example
 * process.exitCode = await main(['init', 'docs/']);
 */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CliIo = defaultIo(),
): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h') {
    io.out(USAGE);
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-v') {
    io.out(version());
    return 0;
  }
  const { command, args } = commandOf(argv);
  if (wantsHelp(args)) {
    io.out(formatHelp(command.spec));
    return 0;
  }
  return runCommand(command.spec, args, async (input) => (await command.load())(input, env), {
    io,
    env,
  });
}
