/**
 * An encoder-decoder model (T5, mT5) as two ONNX Runtime sessions: the encoder reads the
 * tokens once, the decoder runs its first step from `decoder_start_token_id` over the encoder's
 * states. That one step is all monoT5-style rerankers need, so no KV cache is kept: a merged
 * decoder (Optimum's `decoder_model_merged.onnx`) is run on its no-cache branch.
 */
import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { modelError } from '../errors.js';
import type { Seq2SeqFolder } from '../folder/seq2seq-folder.js';
import type { EncodedBatch } from '../tokenizer/encoded-batch.js';
import type { DeviceChoice } from './device.js';
import type { InputCheck } from './feeds.js';
import type { FirstStepModel } from './first-step.js';
import { ModelSession } from './model-session.js';
import type { SessionOptions } from './session-options.js';
import { toFloatTensor, type FloatTensor } from './tensors.js';

const DECODER_NAMED = new Set([
  'input_ids',
  'encoder_hidden_states',
  'encoder_attention_mask',
  'use_cache_branch',
]);
const PAST = 'past_key_values.';

/** A seq2seq decoder: the decoder ids, the encoder's states and mask, a merged graph's cache. */
export const DECODER_INPUTS: InputCheck = {
  unknown: (names) => names.filter((name) => !DECODER_NAMED.has(name) && !name.startsWith(PAST)),
  hint: "a seq2seq decoder takes input_ids, encoder_hidden_states, encoder_attention_mask and, when merged, use_cache_branch and past_key_values.*, as Optimum's decoder_model.onnx / decoder_model_merged.onnx do",
};

export class Seq2SeqModel implements FirstStepModel {
  readonly encoder: ModelSession;
  readonly decoder: ModelSession;
  readonly decoderStartTokenId: number;
  /** The decoder's vocabulary size when the graph declares it. */
  readonly vocabSize: number | undefined;

  private constructor(encoder: ModelSession, decoder: ModelSession, start: number) {
    this.encoder = encoder;
    this.decoder = decoder;
    this.decoderStartTokenId = start;
    const size = decoder.outputShape('logits')?.[2];
    this.vocabSize = typeof size === 'number' ? size : undefined;
  }

  /**
   * Loads both graphs and checks that they fit together and that irserve can feed them; a
   * misfit is an ERR_CONFIG naming the graph.
   *
   * @example
   * const model = await Seq2SeqModel.create(await loadSeq2SeqFolder('models/monot5'), sessionOptions());
   */
  static async create(folder: Seq2SeqFolder, options: SessionOptions): Promise<Seq2SeqModel> {
    const encoder = await ModelSession.create(folder.encoderFile, options);
    let decoder: ModelSession | undefined;
    try {
      checkEncoder(encoder);
      decoder = await ModelSession.create(folder.decoderFile, options, DECODER_INPUTS);
      checkDecoder(decoder);
      return new Seq2SeqModel(encoder, decoder, folder.decoderStartTokenId);
    } catch (error) {
      await Promise.all([encoder.release(), decoder?.release()]);
      throw error;
    }
  }

  /**
   * The decoder's logits at its first step, one row per encoded text: `[batch, vocab]`.
   *
   * @example
   * const logits = await model.firstStepLogits(tokenizer.encodeBatch(prompts, { maxLength: 512 }));
   */
  async firstStepLogits(batch: EncodedBatch): Promise<FloatTensor> {
    const states = (await this.encoder.runRaw(batch, ['last_hidden_state'])).last_hidden_state!;
    const feeds = this.#decoderFeeds(batch, states);
    try {
      const { logits } = await this.decoder.runTensors(feeds, ['logits']);
      const all = toFloatTensor(logits!);
      const [rows, steps, vocab] = all.dims as [number, number, number];
      const data = new Float32Array(rows * vocab);
      for (let r = 0; r < rows; r++)
        data.set(
          all.data.subarray(((r + 1) * steps - 1) * vocab, (r + 1) * steps * vocab),
          r * vocab,
        );
      logits!.dispose();
      return { data, dims: [rows, vocab] };
    } finally {
      for (const tensor of Object.values(feeds)) tensor.dispose();
    }
  }

  /** The providers the encoder runs on (the decoder's are the same). */
  get device(): DeviceChoice {
    return this.encoder.device;
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }

  #decoderFeeds(batch: EncodedBatch, states: Tensor): Record<string, Tensor> {
    const feeds: Record<string, Tensor> = { encoder_hidden_states: states };
    for (const input of this.decoder.inputMetadata) {
      const type = input.isTensor ? input.type : 'int64';
      if (input.name === 'input_ids')
        feeds[input.name] = intTensor(
          type,
          new Array<number>(batch.size).fill(this.decoderStartTokenId),
          [batch.size, 1],
        );
      else if (input.name === 'encoder_attention_mask')
        feeds[input.name] = intTensor(type, Array.from(batch.attentionMask, Number), [
          batch.size,
          batch.length,
        ]);
      else if (input.name === 'use_cache_branch')
        feeds[input.name] = new Tensor('bool', [false], [1]);
      else if (input.name.startsWith(PAST)) feeds[input.name] = emptyPast(input, batch.size);
    }
    return feeds;
  }
}

function checkEncoder(encoder: ModelSession): void {
  if (encoder.outputShape('last_hidden_state')?.length !== 3)
    throw modelError(
      encoder.modelFile,
      `an encoder graph must output last_hidden_state [batch, sequence, hidden]; it has ${encoder.outputNames.join(', ')}`,
    );
}

function checkDecoder(decoder: ModelSession): void {
  const names = decoder.inputNames;
  const missing = ['input_ids', 'encoder_hidden_states'].filter((name) => !names.includes(name));
  if (missing.length > 0)
    throw modelError(
      decoder.modelFile,
      `a seq2seq decoder graph needs the inputs ${missing.join(', ')} (it has ${names.join(', ')}); is this the encoder or a decoder-only model?`,
    );
  if (names.some((name) => name.startsWith(PAST)) && !names.includes('use_cache_branch'))
    throw modelError(
      decoder.modelFile,
      'this decoder needs the past key values of an earlier step (decoder_with_past_model.onnx); use decoder_model.onnx or decoder_model_merged.onnx',
    );
  if (decoder.outputShape('logits')?.length !== 3)
    throw modelError(
      decoder.modelFile,
      `a seq2seq decoder graph must output logits [batch, steps, vocab]; it has ${decoder.outputNames.join(', ')}`,
    );
}

function intTensor(type: string, values: number[], dims: number[]): Tensor {
  return type === 'int32'
    ? new Tensor('int32', Int32Array.from(values), dims)
    : new Tensor('int64', BigInt64Array.from(values, BigInt), dims);
}

/**
 * Zeros in the shape a merged decoder declares for a past key value: its batch, one step of
 * the symbolic lengths (as Optimum feeds on the first step); the no-cache branch never reads them.
 */
function emptyPast(input: InferenceSession.ValueMetadata, batch: number): Tensor {
  const shape = input.isTensor ? input.shape : [];
  const dims = shape.map((dim, i) =>
    typeof dim === 'number' && dim >= 0 ? dim : i === 0 ? batch : 1,
  );
  const size = dims.reduce((a, b) => a * b, 1);
  const type = input.isTensor ? input.type : 'float32';
  return type === 'float16'
    ? new Tensor('float16', new Uint16Array(size), dims)
    : new Tensor('float32', new Float32Array(size), dims);
}
