/**
 * `GgufEmbedding` (search and score roles, and the embed capability): RoutIR's `Qwen3` engine
 * on llama.cpp. Queries are embedded by a GGUF model (Qwen3-Embedding, bge-m3, ...) on CUDA,
 * Vulkan or the CPU and searched in a vector index exactly as `Dense` does.
 */
import { Dense, type Embedder } from '@irserve/dense';
import type { EngineInit, ModelRequest } from 'irserve/plugin';
import { GgufModelPool, type GgufLease } from '../llama/model-pool.js';
import { ggufEmbedder } from './gguf-embedder.js';
import {
  denseSettingsOf,
  ggufEmbeddingConfigSchema,
  parseGgufEmbeddingConfig,
  type GgufEmbeddingConfig,
} from './embedding-config.js';
import { runtimeHealth } from './health.js';
import { ggufModel, modelRequest } from './model-config.js';

/** The lease of the loaded model, filled when Dense opens its embedder. */
interface LeaseHolder {
  lease?: GgufLease;
}

export class GgufEmbedding extends Dense {
  static override readonly configSchema = ggufEmbeddingConfigSchema;
  static override models(config: Record<string, unknown>): ModelRequest[] {
    return [ggufModel(parseGgufEmbeddingConfig(config))];
  }
  readonly gguf: GgufEmbeddingConfig;
  readonly #holder: LeaseHolder;

  constructor(init: EngineInit) {
    const gguf = parseGgufEmbeddingConfig(init.config);
    const holder: LeaseHolder = {};
    super(init, {
      settings: denseSettingsOf(gguf),
      embedder: () => openEmbedder(init, gguf, holder),
    });
    this.gguf = gguf;
    this.#holder = holder;
  }

  /** The backend, GPU and model, for `/health` (in place of Dense's index storage). */
  override health(): Record<string, unknown> {
    const lease = this.#holder.lease;
    return lease ? runtimeHealth(lease) : { loaded: false, device: this.gguf.device };
  }
}

async function openEmbedder(
  init: EngineInit,
  gguf: GgufEmbeddingConfig,
  holder: LeaseHolder,
): Promise<Embedder> {
  const request = await modelRequest(gguf, init.context, 'embedding');
  const lease = await GgufModelPool.of(init.context).acquire(request, init.context.logger);
  holder.lease = lease;
  init.context.logger.info(runtimeHealth(lease), 'GGUF embedding model loaded');
  try {
    const embedder = await ggufEmbedder(lease, {
      maxLength: gguf.max_length,
      contextSize: gguf.context_size,
      contexts: gguf.batch_size,
      threads: gguf.llama_threads,
      normalize: gguf.normalize,
    });
    return { ...embedder, modelPath: request.path };
  } catch (error) {
    holder.lease = undefined;
    await lease.release();
    throw error;
  }
}
