/**
 * `CrossEncoderReranker` (score role): a local sequence-classification model, or an LLM-style
 * yes/no reranker, scoring `(query, passage)` pairs in process. Usable as `>> rerank` in a
 * pipeline; long passages are cut to `max_length`, batches split to `batch_size`.
 */
import { resolve } from 'node:path';
import { BaseEngine, type EngineInit, type ScoreRequest } from 'irserve/plugin';
import { sessionPoolFor } from '../runtime/context-pool.js';
import type { ModelLease } from '../runtime/session-pool.js';
import {
  crossEncoderConfigSchema,
  parseCrossEncoderConfig,
  type CrossEncoderConfig,
} from './config.js';
import { PairScorer } from './pair-scorer.js';
import { uniquePairs } from './unique-pairs.js';

interface Ready {
  lease: ModelLease;
  scorer: PairScorer;
}

export class CrossEncoderReranker extends BaseEngine {
  static readonly configSchema = crossEncoderConfigSchema;
  readonly settings: CrossEncoderConfig;
  #ready: Promise<Ready> | undefined;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseCrossEncoderConfig(init.config);
  }

  /** Loads the model (shared with other services naming the same folder) and checks it. */
  async start(): Promise<void> {
    const { scorer, lease } = await this.#open();
    this.context.logger.info(
      {
        service: this.name,
        model: lease.folder.path,
        mode: scorer.mode,
        max_length: scorer.maxLength,
        device: lease.session.device,
      },
      'cross-encoder loaded',
    );
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    await (await ready?.catch(() => undefined))?.lease.release();
  }

  /** Scores every (query, passage) of the batch; identical pairs run once. */
  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    const { pairs, slots } = uniquePairs(requests, 'CrossEncoderReranker');
    if (pairs.length === 0) return requests.map(() => []);
    const { scorer } = await this.#open();
    const scores = await scorer.score(pairs);
    return slots.map((row) => row.map((slot) => scores[slot]!));
  }

  #open(): Promise<Ready> {
    this.#ready ??= (async () => {
      const {
        model_path,
        model_name_or_path,
        execution_providers,
        device,
        intra_op_threads,
        inter_op_threads,
        graph_optimization,
      } = this.settings;
      const folder = resolve(this.context.configDir, (model_path ?? model_name_or_path)!);
      const lease = await sessionPoolFor(this.context).acquire(folder, {
        execution_providers,
        ...(device ? { device } : {}),
        intra_op_threads,
        inter_op_threads,
        graph_optimization,
      });
      try {
        return { lease, scorer: new PairScorer(lease, this.settings, Object.keys(this.config)) };
      } catch (error) {
        await lease.release();
        throw error;
      }
    })();
    return this.#ready;
  }
}
