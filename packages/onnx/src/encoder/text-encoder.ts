/**
 * A local text embedder: tokenizer, shared session, pooling and normalisation of one model
 * folder. `Dense` (through `encoder`), `irserve-encode` and the bench use it.
 */
import { modelError } from '../errors.js';
import type { PoolingName } from '../folder/onnx-config.js';
import type { ModelFolder } from '../folder/model-folder.js';
import { l2Normalize, pool } from '../pooling/pooling.js';
import { inChunks } from '../runtime/batches.js';
import type { ModelLease } from '../runtime/session-pool.js';
import type { FloatTensor } from '../runtime/tensors.js';

export interface TextEncoderOptions {
  /** Default: the folder's (onnx_config.json, 1_Pooling), else `none` for a 2-D output, else `mean`. */
  pooling?: PoolingName;
  /** L2-normalise the vectors. Default: the folder's (a sentence-transformers Normalize), else false. */
  normalize?: boolean;
  /** Most tokens per text (longer texts are cut). Default: the folder's, else 512. */
  maxLength?: number;
  /** Texts per `session.run` (larger requests are split). Default 32. */
  batchSize?: number;
  /** The graph output to pool. Default: onnx_config.json's, else `last_hidden_state`, `token_embeddings`, `sentence_embedding`, else the first. */
  output?: string;
}

/** Time spent in a call, for the bench: the session's share and irserve's own. */
export interface EncodeTimings {
  sessionMs: number;
  totalMs: number;
}

const PREFERRED_OUTPUTS = ['last_hidden_state', 'token_embeddings', 'sentence_embedding'];

export class TextEncoder {
  readonly pooling: PoolingName;
  readonly normalize: boolean;
  readonly maxLength: number;
  readonly batchSize: number;
  readonly output: string;
  readonly #model: ModelLease;
  #dimension: number | undefined;

  /**
   * Checks the options against the graph (output present, pooling fits its rank) and throws
   * ERR_CONFIG naming the folder when they do not fit.
   *
   * @example
   * const encoder = new TextEncoder(await pool.acquire('models/minilm'), { pooling: 'mean' });
   */
  constructor(model: ModelLease, options: TextEncoderOptions = {}) {
    this.#model = model;
    const { folder, session } = model;
    this.output = options.output ?? folder.onnxConfig.output ?? pickOutput(session.outputNames);
    if (!session.outputNames.includes(this.output))
      throw modelError(
        folder.path,
        `the graph has no output ${this.output} (it has ${session.outputNames.join(', ')})`,
      );
    const shape = session.outputShape(this.output);
    this.pooling = options.pooling ?? folder.pooling ?? (shape?.length === 2 ? 'none' : 'mean');
    const wanted = this.pooling === 'none' ? 2 : 3;
    if (shape && shape.length !== wanted)
      throw modelError(
        folder.path,
        `pooling "${this.pooling}" needs a ${wanted === 3 ? '[batch, sequence, hidden]' : '[batch, dim]'} output, but ${this.output} has shape [${shape.join(', ')}]`,
      );
    const last = shape?.[shape.length - 1];
    this.#dimension = typeof last === 'number' ? last : undefined;
    this.normalize = options.normalize ?? folder.normalize ?? false;
    this.maxLength = options.maxLength ?? folder.maxLength ?? 512;
    this.batchSize = options.batchSize ?? 32;
  }

  /** The model folder's query and passage prefixes (its sentence-transformers prompts). */
  get prefixes(): ModelFolder['prefixes'] {
    return this.#model.folder.prefixes;
  }

  /** The embedding length when the graph declares it (or once a text was embedded). */
  get dimension(): number | undefined {
    return this.#dimension;
  }

  /**
   * One vector per text, in order; prompts must already be applied. Large inputs are split
   * into `batchSize` chunks; a text the tokenizer fails on is an ERR_ENGINE.
   *
   * @example
   * const [query] = await encoder.embed(['query: what is a cat']);
   */
  async embed(texts: readonly string[], timings?: EncodeTimings): Promise<Float32Array[]> {
    const started = performance.now();
    const vectors = await inChunks(
      texts,
      this.batchSize,
      (t) => t.length,
      (chunk) => this.#embedChunk(chunk, timings),
    );
    if (timings) timings.totalMs += performance.now() - started;
    return vectors;
  }

  /** Gives the shared session back to its pool. */
  async close(): Promise<void> {
    await this.#model.release();
  }

  async #embedChunk(texts: string[], timings?: EncodeTimings): Promise<Float32Array[]> {
    const batch = this.#model.tokenizer.encodeBatch(texts, { maxLength: this.maxLength });
    const started = performance.now();
    const outputs = await this.#model.session.run(batch, [this.output]);
    if (timings) timings.sessionMs += performance.now() - started;
    const states: FloatTensor = outputs[this.output]!;
    const vectors = pool(this.pooling, states, batch.attentionMask);
    this.#dimension = vectors[0]?.length ?? this.#dimension;
    return this.normalize ? l2Normalize(vectors) : vectors;
  }
}

function pickOutput(names: readonly string[]): string {
  return PREFERRED_OUTPUTS.find((name) => names.includes(name)) ?? names[0] ?? 'last_hidden_state';
}
