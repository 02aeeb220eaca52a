/**
 * monoT5 / mT5 scores of (query, passage) pairs: the prompt through the encoder, one decoder
 * step from `decoder_start_token_id`, and the log-probability of the "true" token against the
 * "false" token at that step (a log-softmax over the two logits), as RoutIR's MT5Reranker
 * scores. Scores are at most 0; higher is more relevant.
 */
import { engineError, modelError } from '../errors.js';
import { inChunks } from '../runtime/batches.js';
import type { LoadedSeq2Seq } from '../runtime/session-pool.js';
import { padRows } from '../tokenizer/encoded-batch.js';
import type { MT5Config } from './mt5-config.js';
import { MonoT5Prompt } from './mt5-prompt.js';
import type { Pair } from './unique-pairs.js';
import type { PredictionTokens } from './prediction-tokens.js';

export class MonoT5Scorer {
  /** Token ids of the two answers: [false, true]. */
  readonly tokenIds: readonly [number, number];
  readonly #model: LoadedSeq2Seq;
  readonly #prompt: MonoT5Prompt;
  readonly #batchSize: number;

  /**
   * Checks the answer tokens against the tokenizer and the decoder's vocabulary.
   *
   * @example new MonoT5Scorer(lease, settings, { false: '▁false', true: '▁true', source: 'the config' })
   */
  constructor(model: LoadedSeq2Seq, settings: MT5Config, tokens: PredictionTokens) {
    const { folder, tokenizer } = model;
    this.#model = model;
    this.#batchSize = settings.batch_size;
    this.#prompt = new MonoT5Prompt(tokenizer, settings.prompt, {
      queryTokens: settings.q_max_length,
      documentTokens: settings.d_max_length,
    });
    this.tokenIds = [tokens.false, tokens.true].map((token) => {
      const id = tokenizer.tokenId(token);
      if (id === undefined)
        throw modelError(
          folder.path,
          `the tokenizer has no token ${JSON.stringify(token)} (token_false / token_true, from ${tokens.source}); SentencePiece words start with "▁"`,
        );
      const vocab = model.model.vocabSize;
      if (vocab !== undefined && id >= vocab)
        throw modelError(
          folder.path,
          `the token ${JSON.stringify(token)} has id ${id}, past the decoder's ${vocab} logits`,
        );
      return id;
    }) as [number, number];
  }

  /**
   * One score per pair, in order; pairs run `batch_size` at a time.
   *
   * @example
   * await scorer.score([{ query: 'cats', passage: 'a cat is a small feline' }]) // [-0.02]
   */
  async score(pairs: readonly Pair[]): Promise<number[]> {
    return inChunks(
      pairs,
      this.#batchSize,
      (p) => p.query.length + p.passage.length,
      (chunk) => this.#scoreChunk(chunk),
    );
  }

  async #scoreChunk(pairs: Pair[]): Promise<number[]> {
    const { tokenizer, model } = this.#model;
    const rows = pairs.map((pair) => {
      try {
        return this.#prompt.encode(pair.query, pair.passage);
      } catch (error) {
        throw engineError(
          `the tokenizer failed on a (query, passage) pair: ${(error as Error).message}`,
          error,
        );
      }
    });
    const logits = await model.firstStepLogits(padRows(rows, tokenizer.padId, 'right'));
    const vocab = logits.dims[1]!;
    const [no, yes] = this.tokenIds;
    return pairs.map((_, r) =>
      logSigmoid(logits.data[r * vocab + yes]! - logits.data[r * vocab + no]!),
    );
  }
}

/** log(e^t / (e^f + e^t)) = log sigmoid(t - f), without overflow either way. */
function logSigmoid(x: number): number {
  return x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x));
}
