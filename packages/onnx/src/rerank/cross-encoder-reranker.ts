/**
 * `CrossEncoderReranker` (score role): a local sequence-classification model, or an LLM-style
 * yes/no reranker, scoring `(query, passage)` pairs in process. Usable as `>> rerank` in a
 * pipeline; long passages are cut to `max_length`, batches split to `batch_size`.
 */
import { resolveModel, type EngineInit } from 'irserve/plugin';
import { sessionPoolFor } from '../runtime/context-pool.js';
import type { ModelLease } from '../runtime/session-pool.js';
import {
  crossEncoderConfigSchema,
  crossEncoderModel,
  parseCrossEncoderConfig,
  type CrossEncoderConfig,
} from './config.js';
import { PairScorer } from './pair-scorer.js';
import { rerankerGraph } from './reranker-graph.js';
import { LeasedReranker } from './leased-reranker.js';

interface Ready {
  lease: ModelLease;
  scorer: PairScorer;
  model: string;
}

export class CrossEncoderReranker extends LeasedReranker<Ready> {
  static readonly configSchema = crossEncoderConfigSchema;
  static readonly models = (config: Record<string, unknown>) => [
    crossEncoderModel(parseCrossEncoderConfig(config)),
  ];
  readonly settings: CrossEncoderConfig;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseCrossEncoderConfig(init.config);
  }

  /** Loads the model (shared with other services naming the same folder) and checks it. */
  async start(): Promise<void> {
    const { scorer, lease } = await this.opened();
    this.context.logger.info(
      {
        model: lease.folder.path,
        mode: scorer.mode,
        max_length: scorer.maxLength,
        device: lease.session.device,
      },
      'cross-encoder loaded',
    );
  }

  protected async load(): Promise<Ready> {
    const { execution_providers, device, intra_op_threads, inter_op_threads, graph_optimization } =
      this.settings;
    const model = await resolveModel(this.context, crossEncoderModel(this.settings));
    const lease = await sessionPoolFor(this.context).acquire(model.folder, {
      ...(model.modelFile ? { modelFile: model.modelFile } : {}),
      execution_providers,
      ...(device ? { device } : {}),
      intra_op_threads,
      inter_op_threads,
      graph_optimization,
      ...(await rerankerGraph(model.folder, this.settings)),
    });
    try {
      const scorer = new PairScorer(lease, this.settings, Object.keys(this.config));
      return { lease, scorer, model: lease.folder.path };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }
}
