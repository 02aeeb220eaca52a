/**
 * `GgufReranker` (score role): RoutIR's `Qwen3Reranker` on llama.cpp. A GGUF ranking model
 * (bge-reranker, Qwen3-Reranker, ...) scores (query, passage) pairs on CUDA, Vulkan or the CPU;
 * usable as `>> rerank` in a pipeline. Loading once, identical pairs scored once and the lease
 * released on close come from the in-process rerankers' base (`@irserve/onnx/leased-reranker`,
 * which loads no ONNX Runtime).
 */
import { LeasedReranker } from '@irserve/onnx/leased-reranker';
import type { EngineInit } from 'irserve/plugin';
import { GgufModelPool, type GgufLease } from '../llama/model-pool.js';
import { ggufRanker, type GgufRanker } from './gguf-ranker.js';
import { runtimeHealth } from './health.js';
import { ggufModel, modelRequest } from './model-config.js';
import {
  ggufRerankerConfigSchema,
  llamaTemplate,
  parseGgufRerankerConfig,
  type GgufRerankerConfig,
} from './reranker-config.js';

interface Ready {
  lease: GgufLease;
  scorer: GgufRanker;
  model: string;
}

export class GgufReranker extends LeasedReranker<Ready> {
  static readonly configSchema = ggufRerankerConfigSchema;
  static readonly models = (config: Record<string, unknown>) => [
    ggufModel(parseGgufRerankerConfig(config)),
  ];
  readonly settings: GgufRerankerConfig;
  #lease: GgufLease | undefined;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseGgufRerankerConfig(init.config);
  }

  /** Loads the model (shared with other services naming the same file) before serving. */
  async start(): Promise<void> {
    const { lease } = await this.opened();
    this.context.logger.info(runtimeHealth(lease), 'GGUF reranker loaded');
  }

  override async close(): Promise<void> {
    this.#lease = undefined;
    await super.close();
  }

  /** The backend, GPU and model, for `/health`. */
  health(): Record<string, unknown> {
    return this.#lease
      ? runtimeHealth(this.#lease)
      : { loaded: false, device: this.settings.device };
  }

  protected async load(): Promise<Ready> {
    const s = this.settings;
    const request = await modelRequest(s, this.context, 'ranking');
    const lease = await GgufModelPool.of(this.context).acquire(request, this.context.logger);
    try {
      const scorer = await ggufRanker(lease, {
        maxLength: s.max_length,
        contextSize: s.context_size,
        contexts: s.batch_size,
        threads: s.llama_threads,
        template: llamaTemplate(s),
      });
      this.#lease = lease;
      return { lease, scorer, model: request.path };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }
}
