/**
 * `GgufReranker` (score role): RoutIR's `Qwen3Reranker` on llama.cpp. A GGUF ranking model
 * (bge-reranker, Qwen3-Reranker, ...) scores (query, passage) pairs on CUDA, Vulkan or the CPU;
 * usable as `>> rerank` in a pipeline.
 */
import { resolve } from 'node:path';
import { BaseEngine, badRequest, type EngineInit, type ScoreRequest } from 'irserve/plugin';
import { GgufModelPool, type GgufLease } from '../llama/model-pool.js';
import { ggufRanker, type GgufRanker, type Pair } from './gguf-ranker.js';
import { runtimeHealth } from './health.js';
import {
  ggufRerankerConfigSchema,
  llamaTemplate,
  parseGgufRerankerConfig,
  type GgufRerankerConfig,
} from './reranker-config.js';

interface Ready {
  lease: GgufLease;
  ranker: GgufRanker;
}

export class GgufReranker extends BaseEngine {
  static readonly configSchema = ggufRerankerConfigSchema;
  readonly settings: GgufRerankerConfig;
  #ready: Promise<Ready> | undefined;
  #lease: GgufLease | undefined;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseGgufRerankerConfig(init.config);
  }

  /** Loads the model (shared with other services naming the same file) before serving. */
  async start(): Promise<void> {
    const { lease } = await this.#open();
    this.context.logger.info(
      { service: this.name, ...runtimeHealth(lease) },
      'GGUF reranker loaded',
    );
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    this.#lease = undefined;
    const opened = await ready?.catch(() => undefined);
    await opened?.ranker.close();
    await opened?.lease.release();
  }

  /** The backend, GPU and model, for `/health`. */
  health(): Record<string, unknown> {
    return this.#lease
      ? runtimeHealth(this.#lease)
      : { loaded: false, device: this.settings.device };
  }

  /** Scores every (query, passage) of the batch; identical pairs run once. */
  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    const pairs: Pair[] = [];
    const slots = new Map<string, number>();
    const rows = requests.map((request) =>
      request.passages.map((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: the GgufReranker engine scores text passages`);
        const key = JSON.stringify([request.query, passage]);
        let slot = slots.get(key);
        if (slot === undefined) {
          slot = pairs.push({ query: request.query, passage }) - 1;
          slots.set(key, slot);
        }
        return slot;
      }),
    );
    if (pairs.length === 0) return requests.map(() => []);
    const { ranker } = await this.#open();
    const scores = await ranker.score(pairs);
    return rows.map((row) => row.map((slot) => scores[slot]!));
  }

  #open(): Promise<Ready> {
    this.#ready ??= (async () => {
      const s = this.settings;
      const lease = await GgufModelPool.of(this.context).acquire(
        {
          path: resolve(this.context.configDir, (s.model_path ?? s.model_name_or_path)!),
          role: 'ranking',
          device: s.device,
          gpuLayers: s.gpu_layers,
          gpuAssignment: s.gpu_assignment,
          threads: s.llama_threads,
        },
        this.context.logger,
      );
      try {
        const ranker = await ggufRanker(lease, {
          maxLength: s.max_length,
          contextSize: s.context_size,
          contexts: s.batch_size,
          threads: s.llama_threads,
          template: llamaTemplate(s),
        });
        this.#lease = lease;
        return { lease, ranker };
      } catch (error) {
        await lease.release();
        throw error;
      }
    })();
    return this.#ready;
  }
}
