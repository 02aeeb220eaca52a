/**
 * `irserve-gpu-install cuda|vulkan [--dry_run]`: the one step a GPU host runs. It fetches
 * llama.cpp's prebuilt binaries for the backend (the version matching the installed
 * node-llama-cpp) with `npm pack` from the registry, unpacks them next to node-llama-cpp, then
 * loads the backend to prove it works. A plain `npm ci` never downloads them (hundreds of MB).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BACKEND_PACKAGES, type GpuBackend } from '../llama/device.js';

export interface InstallPlan {
  backend: GpuBackend;
  version: string;
  /** Where each package goes: `node_modules/@node-llama-cpp/<name>` beside node-llama-cpp. */
  targets: { spec: string; dir: string }[];
}

/** node-llama-cpp's folder and version, as Node resolves it from here. */
function nodeLlamaCpp(): { dir: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.resolve('node-llama-cpp')));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (manifest.name === 'node-llama-cpp') return { dir, version: manifest.version };
    } catch {
      // not the package root yet
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('node-llama-cpp is not installed');
    dir = parent;
  }
}

/**
 * What `install` would fetch and where.
 *
 * @example
 * planInstall('cuda').targets[0].spec // '@node-llama-cpp/linux-x64-cuda@3.22.1'
 */
export function planInstall(backend: GpuBackend): InstallPlan {
  const { dir, version } = nodeLlamaCpp();
  const scope = join(dirname(dir), '@node-llama-cpp');
  return {
    backend,
    version,
    targets: BACKEND_PACKAGES[backend].map((name) => ({
      spec: `${name}@${version}`,
      dir: join(scope, name.slice('@node-llama-cpp/'.length)),
    })),
  };
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.error) throw new Error(`${command} could not be started (${result.error.message})`);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status})`);
  return result.stdout;
}

/**
 * `npm pack spec` into `scratch`; an error naming the package, why, and the offline route when
 * npm cannot fetch it (no registry, no network, a version that does not exist).
 */
function pack(spec: string, dir: string, scratch: string): string {
  try {
    const packed = JSON.parse(
      run('npm', ['pack', spec, '--json', '--pack-destination', scratch]),
    ) as { filename: string }[];
    return packed[0]!.filename;
  } catch (error) {
    throw new Error(
      `cannot fetch ${spec}: ${(error as Error).message}. It comes from the npm registry; on a ` +
        `host without it, run npm pack ${spec} where the registry is reachable, copy the .tgz ` +
        `here and unpack it with: mkdir -p ${dir} && tar -xzf <file>.tgz -C ${dir} --strip-components=1`,
      { cause: error },
    );
  }
}

/** Fetches and unpacks every package of the plan (replacing whatever is there). */
export function install(plan: InstallPlan): void {
  const scratch = mkdtempSync(join(tmpdir(), 'irserve-gpu-install-'));
  try {
    for (const { spec, dir } of plan.targets) {
      console.log(`fetching ${spec} ...`);
      const filename = pack(spec, dir, scratch);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      run('tar', ['-xzf', join(scratch, filename), '-C', dir, '--strip-components=1']);
      console.log(`  unpacked into ${dir}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Loads the backend; prints the GPUs it sees, or why it does not load. */
export async function verify(backend: GpuBackend): Promise<boolean> {
  const { getLlama } = await import('node-llama-cpp');
  try {
    const llama = await getLlama({ build: 'never', gpu: backend });
    console.log(`${backend} loads: ${(await llama.getGpuDeviceNames()).join(', ') || 'no device'}`);
    await llama.dispose();
    return true;
  } catch (error) {
    console.error(
      `${backend} does not load: ${(error as Error).message || (error as Error).name} (is the GPU driver installed?)`,
    );
    return false;
  }
}
