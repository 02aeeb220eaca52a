/**
 * An encoder-decoder as rerankers use it: the logits of the decoder's first step. Two exported
 * graphs (Seq2SeqModel) or one graph irserve built from a checkpoint (FirstStepGraph).
 */
import type { EncodedBatch } from '../tokenizer/encoded-batch.js';
import type { DeviceChoice } from './device.js';
import type { ModelSession } from './model-session.js';
import { toFloatTensor, type FloatTensor } from './tensors.js';

export interface FirstStepModel {
  /** The logits of the decoder's first step: `[batch, vocabulary]`. */
  firstStepLogits(batch: EncodedBatch): Promise<FloatTensor>;
  /** The decoder's vocabulary size when the graph declares it. */
  readonly vocabSize: number | undefined;
  readonly device: DeviceChoice;
  release(): Promise<void>;
}

/** A graph built from a T5 / mT5 checkpoint: encoder and first decoder step in one session. */
export class FirstStepGraph implements FirstStepModel {
  constructor(
    readonly session: ModelSession,
    readonly vocabSize: number | undefined,
  ) {}

  get device(): DeviceChoice {
    return this.session.device;
  }

  async firstStepLogits(batch: EncodedBatch): Promise<FloatTensor> {
    const { logits } = await this.session.runRaw(batch, ['logits']);
    const tensor = toFloatTensor(logits!);
    logits!.dispose();
    return tensor;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
