/**
 * The `irserve-gpu-install cuda|vulkan [--dry_run]` command line as a function: arguments in,
 * exit code out; parsing, `--help`, errors and exit codes are irserve's command-line kit's. The
 * steps are parameters so that tests can stand in for npm and the GPU.
 */
import { flag, runCommand, UsageError, type CliIo, type CommandSpec } from 'irserve/plugin';
import { install, planInstall, verify, type InstallPlan } from './install-backend.js';

const BACKENDS = ['cuda', 'vulkan'] as const;

const FLAGS = {
  dry_run: flag.switch({
    default: false,
    help: 'print what would be fetched and where; install nothing',
  }),
};

/** `irserve-gpu-install`: its usage, argument and flags. */
export const GPU_INSTALL: CommandSpec<typeof FLAGS> = {
  name: 'irserve-gpu-install',
  usage: ['irserve-gpu-install cuda|vulkan [--dry_run]'],
  description:
    "Fetches llama.cpp's prebuilt binaries for the backend (the version matching the installed\n" +
    'node-llama-cpp) from the npm registry, unpacks them beside node-llama-cpp, then loads the\n' +
    'backend to prove it works (docs/gpu.md).',
  positionals: [{ name: 'cuda|vulkan', help: 'the GPU backend to install' }],
  flags: FLAGS,
};

export interface InstallSteps {
  planInstall: (backend: 'cuda' | 'vulkan') => InstallPlan;
  install: (plan: InstallPlan) => void;
  verify: (backend: 'cuda' | 'vulkan') => Promise<boolean>;
}

const STEPS: InstallSteps = { planInstall, install, verify };

/**
 * Runs the command; 0 when the backend is installed and loads, 1 when a step fails, 2 for bad
 * arguments.
 *
 * @example
 * process.exitCode = await installCli(process.argv.slice(2));
 */
export function installCli(
  argv: string[],
  steps: InstallSteps = STEPS,
  io?: CliIo,
): Promise<number> {
  return runCommand(
    GPU_INSTALL,
    argv,
    async ({ flags, positionals: [backend], io }) => {
      if (backend !== 'cuda' && backend !== 'vulkan')
        throw new UsageError(`the backend must be ${BACKENDS.join(' or ')}, got ${backend}`);
      const plan = steps.planInstall(backend);
      for (const { spec, dir } of plan.targets) io.out(`${spec} -> ${dir}`);
      if (flags.dry_run) return 0;
      steps.install(plan);
      return (await steps.verify(backend)) ? 0 : 1;
    },
    io && { io },
  );
}
