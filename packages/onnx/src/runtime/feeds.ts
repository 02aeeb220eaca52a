/**
 * The inputs of an encoder graph, by the names exporters give them, filled from an encoded
 * batch. A graph that wants anything else is refused at load with the names it wants.
 */
import type { InferenceSession } from 'onnxruntime-node';
import { Tensor } from 'onnxruntime-node';
import type { EncodedBatch } from '../tokenizer/encoded-batch.js';

type Source = 'ids' | 'mask' | 'types' | 'positions';

const INPUT_SOURCES: Record<string, Source> = {
  input_ids: 'ids',
  ids: 'ids',
  attention_mask: 'mask',
  mask: 'mask',
  token_type_ids: 'types',
  segment_ids: 'types',
  position_ids: 'positions',
};

/** The graph inputs irserve cannot fill; empty when the graph fits. */
export function unknownInputs(names: readonly string[]): string[] {
  return names.filter((name) => !Object.hasOwn(INPUT_SOURCES, name));
}

/**
 * Which inputs a kind of graph may declare, checked when its session is created: `unknown`
 * lists the misfits, `hint` says what fits (both end up in the start-up error).
 */
export interface InputCheck {
  unknown(names: readonly string[]): string[];
  hint: string;
}

/** Encoder graphs: every input filled from an encoded batch. */
export const ENCODER_INPUTS: InputCheck = {
  unknown: unknownInputs,
  hint: 'it fills input_ids, attention_mask, token_type_ids, position_ids; export without past key values',
};

/**
 * Tensors for every input the graph declares, in the element type it declares (int64 or int32).
 *
 * @example
 * await session.run(feedsFor(session.inputMetadata, batch));
 */
export function feedsFor(
  inputs: readonly InferenceSession.ValueMetadata[],
  batch: EncodedBatch,
): Record<string, Tensor> {
  const feeds: Record<string, Tensor> = {};
  const dims = [batch.size, batch.length];
  for (const input of inputs) {
    const values = valuesFor(INPUT_SOURCES[input.name]!, batch);
    const type = input.isTensor ? input.type : 'int64';
    feeds[input.name] =
      type === 'int32'
        ? new Tensor('int32', Int32Array.from(values, Number), dims)
        : new Tensor('int64', values, dims);
  }
  return feeds;
}

function valuesFor(source: Source, batch: EncodedBatch): BigInt64Array {
  switch (source) {
    case 'ids':
      return batch.inputIds;
    case 'mask':
      return batch.attentionMask;
    case 'types':
      return batch.tokenTypeIds;
    case 'positions':
      return positions(batch);
  }
}

/** 0, 1, 2, ... over each row's real tokens (left padding included), 0 on padding. */
function positions(batch: EncodedBatch): BigInt64Array {
  const out = new BigInt64Array(batch.size * batch.length);
  for (let r = 0; r < batch.size; r++) {
    let next = 0n;
    for (let t = 0; t < batch.length; t++) {
      const i = r * batch.length + t;
      if (batch.attentionMask[i] === 1n) out[i] = next++;
    }
  }
  return out;
}
