/**
 * The `irserve-gpu-install cuda|vulkan [--dry-run]` command line as a function: arguments in,
 * exit code out, every failure a one-line message (never a stack trace). The steps are
 * parameters so that tests can stand in for npm and the GPU.
 */
import { install, planInstall, verify, type InstallPlan } from './install-backend.js';

export const USAGE = 'usage: irserve-gpu-install cuda|vulkan [--dry-run]';

export interface InstallSteps {
  planInstall: (backend: 'cuda' | 'vulkan') => InstallPlan;
  install: (plan: InstallPlan) => void;
  verify: (backend: 'cuda' | 'vulkan') => Promise<boolean>;
}

export interface InstallIo {
  log: (line: string) => void;
  error: (line: string) => void;
}

const STEPS: InstallSteps = { planInstall, install, verify };

/**
 * Runs the command; 0 when the backend is installed and loads, 1 when a step fails, 2 for bad
 * arguments.
 *
 * @example
 * process.exitCode = await installCli(process.argv.slice(2));
 */
export async function installCli(
  args: string[],
  steps: InstallSteps = STEPS,
  io: InstallIo = console,
): Promise<number> {
  const backend = args.find((a) => !a.startsWith('-'));
  if (backend !== 'cuda' && backend !== 'vulkan') {
    io.error(USAGE);
    return 2;
  }
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--dry-run');
  if (unknown.length > 0) {
    io.error(`unknown option ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }
  try {
    const plan = steps.planInstall(backend);
    for (const { spec, dir } of plan.targets) io.log(`${spec} -> ${dir}`);
    if (args.includes('--dry-run')) return 0;
    steps.install(plan);
  } catch (error) {
    io.error(`irserve-gpu-install: ${(error as Error).message}`);
    return 1;
  }
  return (await steps.verify(backend)) ? 0 : 1;
}
