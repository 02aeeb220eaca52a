/** The `irserve-gpu-install` command line: `irserve-gpu-install cuda|vulkan [--dry-run]`. */
import { install, planInstall, verify } from './install-backend.js';

const USAGE = 'usage: irserve-gpu-install cuda|vulkan [--dry-run]';

async function main(args: string[]): Promise<number> {
  const backend = args.find((a) => !a.startsWith('-'));
  if (backend !== 'cuda' && backend !== 'vulkan') {
    console.error(USAGE);
    return 2;
  }
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--dry-run');
  if (unknown.length > 0) {
    console.error(`unknown option ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }
  const plan = planInstall(backend);
  for (const { spec, dir } of plan.targets) console.log(`${spec} -> ${dir}`);
  if (args.includes('--dry-run')) return 0;
  install(plan);
  return (await verify(backend)) ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
