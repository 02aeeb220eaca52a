/**
 * In-process SPLADE through @irserve/onnx: the masked-LM logits of every token, `log1p(relu(x))`,
 * padding masked out, the max over the tokens of each text, then the `max_terms` highest weights
 * of a query. One `session.run` per encoder call (the engine splits a processor batch into calls
 * of `batch_size` texts). The model is shared with other services of the app that name it.
 */
import { sessionPoolFor, type ModelLease } from '@irserve/onnx';
import type { EngineContext } from 'irserve/plugin';
import { topTerms } from './tei.js';
import type { EncodeKind, SparseEncoder, SparseVector } from './types.js';

export interface OnnxSpladeOptions {
  /** The model folder: model.onnx (or onnx_config.json's graph) and tokenizer.json. */
  folder: string;
  /** The graph inside the folder, when a hub id chose one other than the default. */
  modelFile?: string;
  maxLength: number | undefined;
  maxTerms: number | undefined;
  context: EngineContext;
}

/**
 * SPLADE pooling of one batch of logits `[rows, length, vocab]`: for each row, the max over its
 * real tokens of `log1p(relu(logit))`, as sparse `id -> weight` pairs.
 *
 * @example spladePool(logits, dims, mask) // [Map { 2003 => 1.7, ... }, ...]
 */
export function spladePool(
  logits: Float32Array,
  dims: readonly number[],
  attentionMask: BigInt64Array,
): Map<number, number>[] {
  const [rows, length, vocab] = dims as [number, number, number];
  const best = new Float32Array(vocab);
  return Array.from({ length: rows }, (_, r) => {
    best.fill(0);
    for (let t = 0; t < length; t++) {
      if (attentionMask[r * length + t] === 0n) continue;
      const row = logits.subarray((r * length + t) * vocab, (r * length + t + 1) * vocab);
      for (let v = 0; v < vocab; v++) {
        const x = row[v]!;
        if (x > 0) {
          const weight = Math.log1p(x);
          if (weight > best[v]!) best[v] = weight;
        }
      }
    }
    const weights = new Map<number, number>();
    for (let v = 0; v < vocab; v++) if (best[v]! > 0) weights.set(v, best[v]!);
    return weights;
  });
}

export class OnnxSpladeEncoder implements SparseEncoder {
  readonly description: string;
  readonly #lease: ModelLease;
  readonly #options: OnnxSpladeOptions;
  readonly #output: string;
  readonly #vocabulary: string[];
  readonly #maxLength: number;

  private constructor(
    lease: ModelLease,
    options: OnnxSpladeOptions,
    output: string,
    vocab: number,
  ) {
    this.#lease = lease;
    this.#options = options;
    this.#output = output;
    this.description = `ONNX model ${lease.folder.path}`;
    this.#maxLength = options.maxLength ?? lease.folder.maxLength ?? 512;
    this.#vocabulary = Array.from({ length: vocab }, (_, id) => lease.tokenizer.idToken(id) ?? '');
  }

  /**
   * Loads (or shares) the model and checks it is a masked LM: an output `[batch, sequence, vocab]`.
   *
   * @example const encoder = await OnnxSpladeEncoder.open({ folder: 'models/splade', ... });
   */
  static async open(options: OnnxSpladeOptions): Promise<OnnxSpladeEncoder> {
    const lease = await sessionPoolFor(options.context).acquire(options.folder, {
      ...(options.modelFile ? { modelFile: options.modelFile } : {}),
      head: 'masked-lm',
    });
    try {
      const names = lease.session.outputNames;
      const output = names.includes('logits') ? 'logits' : names[0]!;
      const shape = lease.session.outputShape(output);
      const vocab = shape?.[2];
      // A hidden-state output is rank 3 too; its width is far below the tokenizer's vocabulary.
      const tooNarrow = typeof vocab === 'number' && lease.tokenizer.idToken(vocab) !== undefined;
      if (shape?.length !== 3 || typeof vocab !== 'number' || tooNarrow)
        throw new Error(
          `${lease.folder.path}: a SPLADE model needs masked-LM logits [batch, sequence, vocab], but output ${output} has shape [${shape?.join(', ') ?? 'none'}]${tooNarrow ? ", narrower than the tokenizer's vocabulary" : ''}`,
        );
      return new OnnxSpladeEncoder(lease, options, output, vocab);
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  vocabulary(): Promise<readonly string[]> {
    return Promise.resolve(this.#vocabulary);
  }

  async encode(texts: string[], kind: EncodeKind): Promise<SparseVector[]> {
    if (texts.length === 0) return [];
    const { tokenizer, session } = this.#lease;
    const batch = tokenizer.encodeBatch(texts, { maxLength: this.#maxLength });
    const logits = (await session.run(batch, [this.#output]))[this.#output]!;
    return spladePool(logits.data, logits.dims, batch.attentionMask).map((weights) => {
      const vector: SparseVector = Object.create(null) as SparseVector;
      for (const [id, weight] of weights) {
        // Exports often pad the logits past the tokenizer's last token; those ids are no token.
        const token = this.#vocabulary[id]!;
        if (token !== '') vector[token] = weight;
      }
      return kind === 'query' ? topTerms(vector, this.#options.maxTerms) : vector;
    });
  }

  close(): Promise<void> {
    return this.#lease.release();
  }
}
