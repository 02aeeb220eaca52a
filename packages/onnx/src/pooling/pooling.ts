/**
 * Pooling of token states into one vector per row, in TypeScript, so any exported encoder works
 * without pooling inside its graph. Every function reads the attention mask, so left and right
 * padding give the same vectors.
 */
import type { PoolingName } from '../folder/onnx-config.js';
import type { FloatTensor } from '../runtime/tensors.js';

/**
 * The first real token of each row (`[CLS]` for BERT-style encoders).
 *
 * @example
 * clsPool(states, batch.attentionMask) // one Float32Array(dim) per row
 */
export function clsPool(states: FloatTensor, mask: BigInt64Array): Float32Array[] {
  return pickToken(states, mask, 'first');
}

/**
 * The last real token of each row (decoder LLM embedders such as Qwen3-Embedding).
 *
 * @example
 * lastTokenPool(states, batch.attentionMask)
 */
export function lastTokenPool(states: FloatTensor, mask: BigInt64Array): Float32Array[] {
  return pickToken(states, mask, 'last');
}

/**
 * The mean of the real tokens' states (sentence-transformers' default).
 *
 * @example
 * meanPool(states, batch.attentionMask)
 */
export function meanPool(states: FloatTensor, mask: BigInt64Array): Float32Array[] {
  const [rows, length, dim] = shape3(states);
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const sum = new Float32Array(dim);
    let count = 0;
    for (let t = 0; t < length; t++) {
      if (mask[r * length + t] === 0n) continue;
      const base = (r * length + t) * dim;
      for (let d = 0; d < dim; d++) sum[d]! += states.data[base + d]!;
      count++;
    }
    if (count > 0) for (let d = 0; d < dim; d++) sum[d] = sum[d]! / count;
    out.push(sum);
  }
  return out;
}

/**
 * The element-wise maximum over the real tokens.
 *
 * @example
 * maxPool(states, batch.attentionMask)
 */
export function maxPool(states: FloatTensor, mask: BigInt64Array): Float32Array[] {
  const [rows, length, dim] = shape3(states);
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const best = new Float32Array(dim).fill(-Infinity);
    let seen = false;
    for (let t = 0; t < length; t++) {
      if (mask[r * length + t] === 0n) continue;
      seen = true;
      const base = (r * length + t) * dim;
      for (let d = 0; d < dim; d++) best[d] = Math.max(best[d]!, states.data[base + d]!);
    }
    out.push(seen ? best : new Float32Array(dim));
  }
  return out;
}

/**
 * Rows of a graph that pools itself (`[batch, dim]` output, e.g. `sentence_embedding`).
 *
 * @example
 * rowsOf({ data: new Float32Array(6), dims: [2, 3] }) // two Float32Array(3)
 */
export function rowsOf(tensor: FloatTensor): Float32Array[] {
  if (tensor.dims.length !== 2)
    throw new TypeError(`expected a [batch, dim] output, got dims [${tensor.dims.join(', ')}]`);
  const [rows, dim] = tensor.dims as [number, number];
  return Array.from({ length: rows }, (_, r) => tensor.data.slice(r * dim, (r + 1) * dim));
}

/**
 * Pools by name; `none` takes a `[batch, dim]` output as it is.
 *
 * @example
 * pool('mean', states, batch.attentionMask)
 */
export function pool(name: PoolingName, states: FloatTensor, mask: BigInt64Array): Float32Array[] {
  switch (name) {
    case 'cls':
      return clsPool(states, mask);
    case 'mean':
      return meanPool(states, mask);
    case 'max':
      return maxPool(states, mask);
    case 'last_token':
      return lastTokenPool(states, mask);
    case 'none':
      return rowsOf(states);
  }
}

/**
 * Scales each vector to unit L2 length in place (a zero vector stays zero); returns them.
 *
 * @example
 * l2Normalize([Float32Array.of(3, 4)]) // [Float32Array [0.6, 0.8]]
 */
export function l2Normalize(vectors: Float32Array[]): Float32Array[] {
  for (const vector of vectors) {
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    if (norm === 0) continue;
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  }
  return vectors;
}

function shape3(states: FloatTensor): [number, number, number] {
  if (states.dims.length !== 3)
    throw new TypeError(
      `token pooling needs a [batch, sequence, hidden] output, got dims [${states.dims.join(', ')}]`,
    );
  return states.dims as [number, number, number];
}

function pickToken(
  states: FloatTensor,
  mask: BigInt64Array,
  which: 'first' | 'last',
): Float32Array[] {
  const [rows, length, dim] = shape3(states);
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    let chosen = -1;
    for (let t = 0; t < length; t++) {
      if (mask[r * length + t] === 0n) continue;
      chosen = t;
      if (which === 'first') break;
    }
    const base = (r * length + Math.max(0, chosen)) * dim;
    out.push(chosen < 0 ? new Float32Array(dim) : states.data.slice(base, base + dim));
  }
  return out;
}
