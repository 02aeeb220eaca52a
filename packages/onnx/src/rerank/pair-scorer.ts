/**
 * Scores (query, passage) pairs with a loaded model: a classifier head's logit, or an LLM's
 * yes/no next-token logits (Qwen3-Reranker). The mode and the tokens are checked against the
 * graph when the scorer is built, so a misfit is a start-up error, not a failed request.
 */
import { engineError, modelError } from '../errors.js';
import { lastTokenPool, rowsOf } from '../pooling/pooling.js';
import { inChunks } from '../runtime/batches.js';
import type { LoadedModel } from '../runtime/session-pool.js';
import type { FloatTensor } from '../runtime/tensors.js';
import { splitTemplate } from '../tokenizer/template.js';
import type { TokenizerInput } from '../tokenizer/text-tokenizer.js';
import type { CrossEncoderConfig } from './config.js';
import type { Pair } from './unique-pairs.js';

export type { Pair } from './unique-pairs.js';

/** Config keys that mean something in one mode only. */
const MODE_ONLY: Record<string, 'classifier' | 'yes_no'> = {
  activation: 'classifier',
  label: 'classifier',
  template: 'yes_no',
  instruction: 'yes_no',
  yes_token: 'yes_no',
  no_token: 'yes_no',
};

export class PairScorer {
  readonly mode: 'classifier' | 'yes_no';
  readonly output: string;
  readonly maxLength: number;
  readonly #model: LoadedModel;
  readonly #settings: CrossEncoderConfig;
  readonly #yesNo: [number, number] | undefined;
  /** Yes/no mode: the tokenizer's token count, the fewest columns next-token logits have. */
  readonly #vocabulary: number = 0;
  /** Yes/no mode on a built graph: `[batch, 2]`, the last token's yes and no logits. */
  readonly #lastOnly: boolean = false;

  /**
   * `given` are the config keys the user wrote: a key of the other mode is an error, never
   * silently ignored.
   *
   * @example new PairScorer(lease, parseCrossEncoderConfig({ model_path: 'models/ce' }))
   */
  constructor(model: LoadedModel, settings: CrossEncoderConfig, given: readonly string[] = []) {
    const { folder, session, tokenizer } = model;
    this.#model = model;
    this.#settings = settings;
    this.output =
      settings.output ??
      (session.outputNames.includes('logits') ? 'logits' : session.outputNames[0]!);
    const shape = session.outputShape(this.output);
    if (!session.outputNames.includes(this.output) || !shape)
      throw modelError(
        folder.path,
        `the graph has no tensor output ${this.output} (it has ${session.outputNames.join(', ')})`,
      );
    // A graph irserve built for a yes/no reranker outputs the last token's yes and no logits.
    const built = model.built?.head === 'next-token';
    this.mode =
      settings.mode === 'auto'
        ? shape.length === 3 || built
          ? 'yes_no'
          : 'classifier'
        : settings.mode;
    const rank = this.mode === 'yes_no' && !built ? 3 : 2;
    if (shape.length !== rank)
      throw modelError(
        folder.path,
        `mode "${this.mode}" needs ${rank === 3 ? 'next-token logits [batch, sequence, vocab]' : 'classifier logits [batch, labels]'}, but ${this.output} has shape [${shape.join(', ')}]`,
      );
    const foreign = given.filter(
      (key) => MODE_ONLY[key] !== undefined && MODE_ONLY[key] !== this.mode,
    );
    if (foreign.length > 0)
      throw modelError(
        folder.path,
        `${foreign.join(', ')} only apply to mode "${MODE_ONLY[foreign[0]!]}", but this model runs as "${this.mode}"`,
      );
    this.maxLength = settings.max_length ?? folder.maxLength ?? 512;
    if (this.mode === 'yes_no') {
      const yes = tokenizer.tokenId(settings.yes_token);
      const no = tokenizer.tokenId(settings.no_token);
      if (yes === undefined || no === undefined)
        throw modelError(
          folder.path,
          `the tokenizer has no token ${JSON.stringify(yes === undefined ? settings.yes_token : settings.no_token)} (yes_token / no_token)`,
        );
      this.#yesNo = built ? [0, 1] : [yes, no];
      this.#lastOnly = built;
      this.#vocabulary = built ? 2 : tokenizer.vocabularySize();
      this.#checkVocabulary(shape[built ? 1 : 2]);
    }
  }

  /**
   * Yes/no logits have one column per token: fewer columns than the tokenizer has tokens means
   * the output is something else (an embedding model's hidden states), which would score every
   * passage alike. A symbolic size is checked on every run instead.
   */
  #checkVocabulary(columns: number | string | undefined): void {
    const needed = this.#vocabulary;
    if (typeof columns === 'number' && columns < needed)
      throw modelError(
        this.#model.folder.path,
        `mode "yes_no" needs next-token logits over the tokenizer's ${needed} tokens, but ${this.output} has ${columns} columns: this is not a causal language model (an embedding model belongs in Dense, a classifier in mode "classifier")`,
      );
  }

  /**
   * One score per pair, in order; pairs run `batch_size` at a time.
   *
   * @example
   * await scorer.score([{ query: 'cats', passage: 'a cat is a small feline' }])
   */
  async score(pairs: readonly Pair[]): Promise<number[]> {
    return inChunks(
      pairs,
      this.#settings.batch_size,
      (p) => p.query.length + p.passage.length,
      (chunk) => this.#scoreChunk(chunk),
    );
  }

  async #scoreChunk(pairs: Pair[]): Promise<number[]> {
    const { tokenizer, session } = this.#model;
    const inputs = pairs.map((pair) => this.#input(pair));
    const batch = tokenizer.encodeBatch(inputs, { maxLength: this.maxLength });
    const logits: FloatTensor = (await session.run(batch, [this.output]))[this.output]!;
    if (this.#yesNo) {
      const [yes, no] = this.#yesNo;
      const columns = logits.dims.at(-1) ?? 0;
      if (columns < this.#vocabulary)
        throw engineError(
          `model ${this.#model.folder.path}: ${this.output} has ${columns} columns, fewer than the tokenizer's ${this.#vocabulary} tokens: not next-token logits`,
        );
      const rows = this.#lastOnly ? rowsOf(logits) : lastTokenPool(logits, batch.attentionMask);
      return rows.map((row) => sigmoid(row[yes]! - row[no]!));
    }
    return classifierScores(logits, this.#settings);
  }

  #input(pair: Pair): TokenizerInput {
    if (this.mode === 'classifier') return { text: pair.query, pair: pair.passage };
    const [prefix, suffix] = splitTemplate(this.#settings.template, 'passage', {
      query: pair.query,
      instruction: this.#settings.instruction,
    });
    return { prefix, text: pair.passage, suffix };
  }
}

function classifierScores(logits: FloatTensor, settings: CrossEncoderConfig): number[] {
  const [rows, labels] = logits.dims as [number, number];
  const label = settings.label ?? labels - 1;
  if (label >= labels)
    throw new RangeError(`label ${label} is out of range: the model has ${labels} logits`);
  return Array.from({ length: rows }, (_, r) => {
    const row = logits.data.subarray(r * labels, (r + 1) * labels);
    switch (settings.activation) {
      case 'none':
        return row[label]!;
      case 'sigmoid':
        return sigmoid(row[label]!);
      case 'softmax':
        return softmax(row)[label]!;
    }
  });
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function softmax(row: Float32Array): number[] {
  const top = Math.max(...row);
  const exps = Array.from(row, (x) => Math.exp(x - top));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((x) => x / sum);
}
