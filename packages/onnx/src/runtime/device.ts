/**
 * `device` for ONNX Runtime sessions: `cpu`, `cuda`, `webgpu`, or `auto` (CUDA when its
 * provider libraries are installed, then WebGPU, else the CPU). ONNX Runtime itself never falls
 * back when a provider fails to initialise, so each choice is tried in turn and the reasons
 * for passing one over are kept for the start-up log. Without `device` (nor the
 * IRSERVE_ONNX_DEVICE variable) the `execution_providers` list is used as given.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ONNX_DEVICES } from 'irserve/plugin';
import { webgpuUnavailable } from './vulkan-loader.js';

export { ONNX_DEVICES };
export type OnnxDevice = (typeof ONNX_DEVICES)[number];

/** The providers in use and, for `auto`, why the others were passed over. */
export interface DeviceChoice {
  readonly device: 'cuda' | 'webgpu' | 'cpu' | 'custom';
  readonly providers: string[];
  readonly skipped: string[];
}

/**
 * How to get ONNX Runtime's CUDA provider, which the npm package does not carry. The package's
 * own install script fetches it; it is run directly because installs skip it (the `allowScripts`
 * policy of the root package.json, or `ONNXRUNTIME_NODE_INSTALL=skip`).
 */
export const CUDA_INSTALL_STEP =
  'ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js (on a host with CUDA 12 and cuDNN 9, with network)';

/**
 * Whether onnxruntime-node's folder holds the CUDA provider library.
 *
 * @example
 * cudaProviderInstalled() // false after a plain npm ci
 */
export function cudaProviderInstalled(): boolean {
  try {
    const bin = join(dirname(fileURLToPath(import.meta.resolve('onnxruntime-node'))), '..', 'bin');
    for (const napi of readdirSync(bin))
      if (
        existsSync(
          join(bin, napi, process.platform, process.arch, 'libonnxruntime_providers_cuda.so'),
        )
      )
        return true;
    return false;
  } catch {
    return false;
  }
}

/**
 * The device asked for: the option, else IRSERVE_ONNX_DEVICE (so encoders whose engines pass no
 * session options, such as sparse and plaidx, can be moved to a GPU), else none.
 */
export function requestedDevice(
  option: OnnxDevice | undefined,
  env = process.env,
): OnnxDevice | undefined {
  if (option !== undefined) return option;
  const value = env.IRSERVE_ONNX_DEVICE;
  if (value === undefined || value === '') return undefined;
  if (!(ONNX_DEVICES as readonly string[]).includes(value))
    throw new RangeError(
      `IRSERVE_ONNX_DEVICE must be one of ${ONNX_DEVICES.join(', ')}, got "${value}"`,
    );
  return value as OnnxDevice;
}

/**
 * Creates a session with the first device that initialises: `create` is called with each
 * candidate provider list. An explicit GPU device that fails is an error naming what to install.
 *
 * @example
 * const { value, choice } = await onDevice('auto', ['cpu'], (providers) => ort.InferenceSession.create(file, { executionProviders: providers }));
 */
export async function onDevice<T>(
  device: OnnxDevice | undefined,
  providers: string[],
  create: (providers: string[]) => Promise<T>,
): Promise<{ value: T; choice: DeviceChoice }> {
  if (device === undefined)
    return { value: await create(providers), choice: { device: 'custom', providers, skipped: [] } };
  if (device === 'cpu')
    return { value: await create(['cpu']), choice: { device, providers: ['cpu'], skipped: [] } };
  const candidates = device === 'auto' ? (['cuda', 'webgpu'] as const) : [device];
  const skipped: string[] = [];
  for (const candidate of candidates) {
    if (candidate === 'cuda' && !cudaProviderInstalled()) {
      skipped.push(`cuda: the CUDA provider library is not installed (${CUDA_INSTALL_STEP})`);
      continue;
    }
    const noWebgpu = candidate === 'webgpu' ? webgpuUnavailable() : undefined;
    if (noWebgpu !== undefined) {
      skipped.push(`webgpu: ${noWebgpu}`);
      continue;
    }
    try {
      const value = await create([candidate, 'cpu']);
      return { value, choice: { device: candidate, providers: [candidate, 'cpu'], skipped } };
    } catch (error) {
      skipped.push(`${candidate}: ${firstLine((error as Error).message)}`);
    }
  }
  if (device !== 'auto')
    throw new Error(`device "${device}" cannot be used: ${skipped.join('; ')}`);
  return { value: await create(['cpu']), choice: { device: 'cpu', providers: ['cpu'], skipped } };
}

/** ONNX Runtime's messages carry a source path first; the reason is at the end. */
function firstLine(message: string): string {
  const text = message.split('\n')[0]!.trim();
  const reason = text.lastIndexOf(' was false. ');
  return (reason >= 0 ? text.slice(reason + 12) : text).slice(0, 240);
}
