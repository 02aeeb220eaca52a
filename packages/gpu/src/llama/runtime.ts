/**
 * The llama.cpp runtime of an app: one `Llama` per backend, loaded with `build: "never"` so
 * nothing is ever compiled or downloaded at run time. `auto` tries CUDA, then Vulkan, then the
 * CPU, and says in the log why each GPU backend was passed over.
 */
import type { Llama } from 'node-llama-cpp';
import type { EngineContext } from 'irserve/plugin';
import { missingBackend, type GpuBackend, type LlamaDevice } from './device.js';
import { assignGpu, checkGpuIndex, nvidiaGpuCount } from './gpu-assignment.js';

export interface LlamaRuntime {
  readonly llama: Llama;
  /** The backend in use: `cuda`, `vulkan` or `cpu`. */
  readonly backend: GpuBackend | 'cpu';
  /** The GPU's name(s), empty on the CPU. */
  readonly gpus: string[];
  /** Why `auto` passed over a GPU backend (empty otherwise). */
  readonly skipped: string[];
}

type Logger = EngineContext['logger'];

/** How a backend is loaded; tests replace it to stand in for a missing GPU. */
export type LoadBackend = (
  backend: GpuBackend | 'cpu',
  logger: Logger,
  maxThreads?: number,
) => Promise<Llama>;

/**
 * Loads llama.cpp's prebuilt binary for `backend` (never builds); llama.cpp's own log goes to
 * the app's logger.
 *
 * @example
 * const llama = await loadPrebuilt('cpu', logger);
 */
export const loadPrebuilt: LoadBackend = async (backend, logger, maxThreads) => {
  // Imported on first use: node-llama-cpp is heavy, and a server without GGUF services never needs it.
  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  return getLlama({
    build: 'never',
    ...(maxThreads ? { maxThreads } : {}),
    gpu: backend === 'cpu' ? false : backend,
    logLevel: LlamaLogLevel.warn,
    logger: (level, message) => {
      const text = message.trim();
      if (!text) return;
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal)
        logger.error({ llama: text }, 'llama.cpp');
      else logger.warn({ llama: text }, 'llama.cpp');
    },
  });
};

export interface RuntimeOptions {
  device: LlamaDevice;
  gpuAssignment?: number | undefined;
  /** CPU threads llama.cpp may use (0 or absent: node-llama-cpp's default). */
  maxThreads?: number | undefined;
  logger: Logger;
  load?: LoadBackend;
}

/**
 * The runtime for `device`: exactly that backend (an error naming the install step when it
 * cannot load) or, for `auto`, the first that loads.
 *
 * @example
 * const runtime = await openRuntime({ device: 'auto', logger });
 */
export async function openRuntime(options: RuntimeOptions): Promise<LlamaRuntime> {
  const load = options.load ?? loadPrebuilt;
  const order: GpuBackend[] =
    options.device === 'auto'
      ? ['cuda', 'vulkan']
      : options.device === 'cpu'
        ? []
        : [options.device];
  const skipped: string[] = [];
  for (const backend of order) {
    try {
      if (options.gpuAssignment !== undefined) {
        if (backend === 'cuda') checkGpuIndex(options.gpuAssignment, await nvidiaGpuCount());
        assignGpu(backend, options.gpuAssignment, process.env);
      }
      const llama = await load(backend, options.logger, options.maxThreads);
      if (llama.gpu !== backend) throw new Error(`the binary runs on ${String(llama.gpu)}`);
      const gpus = await llama.getGpuDeviceNames();
      if (options.gpuAssignment !== undefined && gpus.length === 0)
        throw new Error(`no GPU ${options.gpuAssignment} is visible to ${backend}`);
      return { llama, backend, gpus, skipped };
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_CONFIG') throw error;
      const reason = reasonOf(error);
      if (options.device !== 'auto') throw missingBackend(backend, reason);
      skipped.push(`${backend}: ${reason}`);
    }
  }
  if (skipped.length > 0)
    options.logger.info(
      { skipped },
      'device auto: no GPU backend loaded, running llama.cpp on the CPU',
    );
  const llama = await load('cpu', options.logger, options.maxThreads);
  return { llama, backend: 'cpu', gpus: [], skipped };
}

function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === 'NoBinaryFoundError')
    return 'no usable prebuilt binary is installed';
  return error instanceof Error ? error.message : String(error);
}
