/**
 * `MT5Reranker` (score role): RoutIR's monoT5 / mT5 reranker on a local seq2seq export
 * (encoder_model.onnx + decoder_model.onnx or decoder_model_merged.onnx) or on a T5 / mT5
 * checkpoint folder, of which irserve builds the graph (architectures/t5.ts). A pair's score is
 * log p(true) against p(false) at the decoder's first step. Usable as `>> rerank` in a
 * pipeline; long queries and passages are cut, batches split to `batch_size`.
 * `MonoT5Reranker` is the same engine under the name monoT5 users look for.
 */
import { basename } from 'node:path';
import { resolveModel, type EngineInit } from 'irserve/plugin';
import { modelError } from '../errors.js';
import { sessionPoolFor } from '../runtime/context-pool.js';
import type { Seq2SeqLease } from '../runtime/session-pool.js';
import {
  mt5ConfigSchema,
  mt5Model,
  parseMT5Config,
  seq2seqOptions,
  type MT5Config,
} from './mt5-config.js';
import { MonoT5Scorer } from './mt5-scorer.js';
import { PREDICTION_TOKENS, predictionTokens, type PredictionTokens } from './prediction-tokens.js';
import { LeasedReranker } from './leased-reranker.js';

interface Ready {
  lease: Seq2SeqLease;
  scorer: MonoT5Scorer;
  tokens: PredictionTokens;
  model: string;
}

export class MT5Reranker extends LeasedReranker<Ready> {
  static readonly configSchema = mt5ConfigSchema;
  static readonly models = (config: Record<string, unknown>) => [mt5Model(parseMT5Config(config))];
  readonly settings: MT5Config;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseMT5Config(init.config);
  }

  /** Loads the model (shared with other services naming the same graphs) and checks it. */
  async start(): Promise<void> {
    const { lease, tokens } = await this.opened();
    this.context.logger.info(
      {
        model: lease.folder.path,
        token_false: tokens.false,
        token_true: tokens.true,
        tokens_from: tokens.source,
        device: lease.model.device,
      },
      'seq2seq reranker loaded',
    );
  }

  protected async load(): Promise<Ready> {
    const model = await resolveModel(this.context, mt5Model(this.settings));
    const lease = await sessionPoolFor(this.context).acquireSeq2Seq(
      model.folder,
      seq2seqOptions(this.settings),
    );
    try {
      // A hub id names the checkpoint itself (castorini/monot5-base-msmarco), a folder its last part.
      const tokens = this.#tokens(model.repo ?? model.folder, lease);
      const scorer = new MonoT5Scorer(lease, this.settings, tokens);
      return { lease, tokens, scorer, model: lease.folder.path };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  /** The configured answer tokens, else RoutIR's by checkpoint: the name given, then config.json's. */
  #tokens(named: string, lease: Seq2SeqLease): PredictionTokens {
    const origin = lease.folder.config._name_or_path;
    const names = [named, ...(typeof origin === 'string' ? [origin] : [])];
    const tokens = predictionTokens(this.settings, names);
    if (tokens) return tokens;
    throw modelError(
      lease.folder.path,
      `the answer tokens are known for RoutIR's ${Object.keys(PREDICTION_TOKENS).length} checkpoints, matched by name (a folder named e.g. ${basename(Object.keys(PREDICTION_TOKENS)[0]!)}), and ${names.map((n) => JSON.stringify(n)).join(' / ')} is none of them: set token_false and token_true ("▁false"/"▁true" for monoT5, "▁no"/"▁yes" for mT5 mMARCO)`,
    );
  }
}

/** The same engine under the name monoT5 users look for. */
export class MonoT5Reranker extends MT5Reranker {}
