/**
 * Whether WebGPU can start here before it is tried. On Linux, ONNX Runtime's WebGPU provider
 * (Dawn) runs on Vulkan; without the Vulkan loader Dawn writes a warning with its C++ source
 * path straight to the process's stderr, where no JavaScript can catch it, and then fails.
 * Looking for the loader first lets `device: "auto"` pass WebGPU over with a reason in the log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LOADER = 'libvulkan.so.1';

export interface LoaderLookup {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** The dynamic linker's cache, which names every library it can find. */
  ldCache?: string;
}

/**
 * Why WebGPU cannot start here, or undefined when it may (other platforms use Metal or Direct3D,
 * which ship with the system).
 *
 * @example
 * webgpuUnavailable() // 'the Vulkan loader (libvulkan.so.1) is not installed: ...' on a server without it
 */
export function webgpuUnavailable(lookup: LoaderLookup = {}): string | undefined {
  const { platform = process.platform, env = process.env, ldCache = '/etc/ld.so.cache' } = lookup;
  if (platform !== 'linux') return undefined;
  const dirs = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
  if (dirs.some((dir) => existsSync(join(dir, LOADER)))) return undefined;
  if (readOrEmpty(ldCache).includes(LOADER)) return undefined;
  return `the Vulkan loader (${LOADER}) is not installed: WebGPU runs on Vulkan on Linux (Debian: apt-get install libvulkan1 and the GPU's Vulkan driver)`;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
}
