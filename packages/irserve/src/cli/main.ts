import { readFileSync } from 'node:fs';
import { COMMANDS, wantsHelp } from './commands.js';
import { reportFailure } from './report-failure.js';
import { USAGE } from './usage.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * The `irserve` command. Returns the exit code; prints errors as readable messages, never stack
 * traces (set IRSERVE_DEBUG=1 for those). Modules load on demand: `--version` and `--help` import
 * nothing but this folder's usage texts.
 *
 * @example
 * process.exitCode = await main(['init', 'docs/']);
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
    const named = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
    const command = named ?? COMMANDS.serve!;
    const args = named ? rest : argv;
    if (wantsHelp(args)) {
      console.log(command.usage);
      return 0;
    }
    const run = await command.load();
    return await run(args, env);
  } catch (error) {
    return reportFailure(error, env);
  }
}
