/**
 * GGUF models shared by reference count: every service naming the same file with the same
 * device settings gets the one loaded model; the last release frees it. The pool (and the
 * runtime per device) belongs to an app through `context.resources`, never to the module.
 */
import type { LlamaModel } from 'node-llama-cpp';
import { IrserveError, SharedByKey, type EngineContext } from 'irserve/plugin';
import type { LlamaDevice } from './device.js';
import { checkFitsGpu } from './memory.js';
import { checkRole, readModelFacts, type ModelFacts, type ModelRole } from './model-kind.js';
import { openRuntime, type LlamaRuntime, type LoadBackend } from './runtime.js';

export type GpuLayers = 'auto' | 'max' | number;

export interface ModelRequest {
  path: string;
  role: ModelRole;
  device: LlamaDevice;
  gpuLayers: GpuLayers;
  gpuAssignment?: number | undefined;
  /** CPU threads of llama.cpp (0 or absent: its default). */
  threads?: number | undefined;
}

export interface LoadedGguf {
  readonly model: LlamaModel;
  readonly runtime: LlamaRuntime;
  readonly facts: ModelFacts;
}

export interface GgufLease extends LoadedGguf {
  release(): Promise<void>;
}

const KEY = '@irserve/gpu:model-pool';

export class GgufModelPool {
  readonly #models = new SharedByKey<LoadedGguf>((loaded) => loaded.model.dispose());
  readonly #runtimes = new Map<string, Promise<LlamaRuntime>>();
  readonly #load: LoadBackend | undefined;

  constructor(load?: LoadBackend) {
    this.#load = load;
  }

  /**
   * The pool of an app, created on first use.
   *
   * @example
   * const lease = await GgufModelPool.of(context).acquire(request, context.logger);
   */
  static of(context: EngineContext): GgufModelPool {
    const resources = context.resources;
    if (!resources) return new GgufModelPool();
    let pool = resources.get(KEY);
    if (!(pool instanceof GgufModelPool)) {
      pool = new GgufModelPool();
      resources.set(KEY, pool);
    }
    return pool as GgufModelPool;
  }

  /**
   * The model of `request.path`, loaded on first use; checks its kind against the role.
   *
   * @example
   * const lease = await pool.acquire({ path, role: 'embedding', device: 'auto', gpuLayers: 'auto' }, logger);
   */
  async acquire(request: ModelRequest, logger: EngineContext['logger']): Promise<GgufLease> {
    const facts = await readModelFacts(request.path);
    checkRole(facts, request.role, request.path);
    const key = JSON.stringify([
      request.path,
      request.device,
      request.gpuLayers,
      request.gpuAssignment,
    ]);
    const lease = await this.#models.acquire(key, () => this.#open(request, facts, logger));
    return { ...lease.value, release: lease.release };
  }

  /** Models loaded now. */
  get size(): number {
    return this.#models.size;
  }

  #runtime(request: ModelRequest, logger: EngineContext['logger']): Promise<LlamaRuntime> {
    const key = JSON.stringify([request.device, request.gpuAssignment, request.threads]);
    let runtime = this.#runtimes.get(key);
    if (!runtime) {
      runtime = openRuntime({
        device: request.device,
        gpuAssignment: request.gpuAssignment,
        maxThreads: request.threads,
        logger,
        ...(this.#load ? { load: this.#load } : {}),
      });
      this.#runtimes.set(key, runtime);
      runtime.catch(() => this.#runtimes.delete(key));
    }
    return runtime;
  }

  async #open(
    request: ModelRequest,
    facts: ModelFacts,
    logger: EngineContext['logger'],
  ): Promise<LoadedGguf> {
    const runtime = await this.#runtime(request, logger);
    if (runtime.backend !== 'cpu') await checkVram(runtime, facts, request);
    try {
      const model = await runtime.llama.loadModel({
        modelPath: request.path,
        gpuLayers: runtime.backend === 'cpu' ? 0 : request.gpuLayers,
      });
      return { model, runtime, facts };
    } catch (error) {
      throw new IrserveError(
        'ERR_CONFIG',
        `model_path: llama.cpp cannot load ${request.path} on ${runtime.backend}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}

/** With explicit layers (a number or `max`), the model must fit the GPU's free memory. */
async function checkVram(
  runtime: LlamaRuntime,
  facts: ModelFacts,
  request: ModelRequest,
): Promise<void> {
  if (request.gpuLayers === 'auto') return;
  const { GgufInsights } = await import('node-llama-cpp');
  const insights = await GgufInsights.from(facts.info, runtime.llama);
  const layers = request.gpuLayers === 'max' ? insights.totalLayers : request.gpuLayers;
  const { gpuVram } = await insights.estimateModelResourceRequirementsV2({ gpuLayers: layers });
  const vram = await runtime.llama.getVramState();
  checkFitsGpu({
    model: request.path,
    needed: gpuVram,
    free: vram.free,
    total: vram.total,
    layers: String(request.gpuLayers),
  });
}
