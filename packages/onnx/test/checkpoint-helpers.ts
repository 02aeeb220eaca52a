/**
 * The checkpoint fixtures (written by fixtures/make-checkpoints.py): random-weight folders in
 * Hugging Face's layout, each with `reference.json` (token ids and every head's expected output,
 * from an independent float64 forward pass), and the same forward pass exported by
 * torch.onnx.export under `checkpoint-exports/`.
 */
import { readFileSync } from 'node:fs';
import { copyFile, cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import type { EncodedBatch, FloatTensor } from '@irserve/onnx';
import { FIXTURES } from './helpers.js';

export const CHECKPOINTS = `${FIXTURES}checkpoints/`;
export const EXPORTS = `${FIXTURES}checkpoint-exports/`;

/** The graph output each head declares. */
export const HEAD_OUTPUT: Record<string, string> = {
  hidden: 'last_hidden_state',
  classifier: 'logits',
  'masked-lm': 'logits',
  colbert: 'token_embeddings',
  'next-token': 'logits',
  'first-step': 'logits',
};

export interface Reference {
  input_ids: number[][];
  attention_mask: number[][];
  token_type_ids?: number[][];
  /** `real-tokens`: a decoder's states at padding positions are not compared (they attend to nothing). */
  compare?: 'real-tokens';
  outputs: Record<string, { dims: number[]; data: number[] }>;
}

export function readReference(name: string): Reference {
  return JSON.parse(readFileSync(`${CHECKPOINTS}${name}/reference.json`, 'utf8')) as Reference;
}

/**
 * The largest difference between an output and the reference's `head` (rows `rows`), at the
 * positions the reference compares.
 */
export function referenceDiff(
  ref: Reference,
  head: string,
  got: FloatTensor,
  rows?: number[],
): number {
  const want = expected(ref, head, rows);
  const picked = rows ?? ref.input_ids.map((_, i) => i);
  const dims = ref.outputs[head]!.dims;
  if (got.data.length !== want.length) return Infinity;
  let worst = 0;
  const width = dims.length === 3 ? dims[2]! : want.length / picked.length;
  for (let i = 0; i < want.length; i++) {
    if (dims.length === 3 && ref.compare === 'real-tokens') {
      const position = Math.floor(i / width);
      const row = picked[Math.floor(position / dims[1]!)]!;
      if (ref.attention_mask[row]![position % dims[1]!] === 0) continue;
    }
    worst = Math.max(worst, Math.abs(got.data[i]! - want[i]!));
  }
  return worst;
}

/** The reference's token ids as an encoded batch (rows `rows`, default all). */
export function referenceBatch(ref: Reference, rows?: number[]): EncodedBatch {
  const picked = rows ?? ref.input_ids.map((_, i) => i);
  const length = ref.input_ids[0]!.length;
  const flat = (table: number[][] | undefined) =>
    BigInt64Array.from(
      picked.flatMap((r) => table?.[r] ?? new Array<number>(length).fill(0)),
      BigInt,
    );
  const attentionMask = flat(ref.attention_mask);
  return {
    size: picked.length,
    length,
    inputIds: flat(ref.input_ids),
    attentionMask,
    tokenTypeIds: flat(ref.token_type_ids),
    lengths: picked.map((r) => ref.attention_mask[r]!.reduce((a, b) => a + b, 0)),
    truncated: picked.map(() => false),
    paddingSide: 'right',
  };
}

/** The expected values of `head` for rows `rows` (all by default). */
export function expected(ref: Reference, head: string, rows?: number[]): Float32Array {
  const { dims, data } = ref.outputs[head]!;
  const per = dims.slice(1).reduce((a, b) => a * b, 1);
  const picked = rows ?? Array.from({ length: dims[0]! }, (_, i) => i);
  return Float32Array.from(picked.flatMap((r) => data.slice(r * per, (r + 1) * per)));
}

/** Runs a torch.onnx.export graph on a batch: the exporter's answer for the same weights. */
export async function runExport(file: string, batch: EncodedBatch): Promise<FloatTensor> {
  const session = await ort.InferenceSession.create(file);
  try {
    const dims = [batch.size, batch.length];
    const feeds: Record<string, ort.Tensor> = {};
    const sources: Record<string, BigInt64Array> = {
      input_ids: batch.inputIds,
      attention_mask: batch.attentionMask,
      token_type_ids: batch.tokenTypeIds,
    };
    for (const name of session.inputNames)
      feeds[name] = new ort.Tensor('int64', sources[name]!, dims);
    const out = (await session.run(feeds))[session.outputNames[0]!]!;
    return { data: out.data as Float32Array, dims: out.dims };
  } finally {
    await session.release();
  }
}

/**
 * A model folder holding the torch.onnx.export of `name`'s `head` as model.onnx beside the
 * checkpoint's tokenizer and config (and `extra` files): what a user exporting the same weights
 * would load, to compare an engine on both.
 */
export async function exportedFolder(
  name: string,
  head: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `irserve-export-${name}-`));
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'config.json'])
    await copyFile(`${CHECKPOINTS}${name}/${file}`, join(dir, file));
  await copyFile(`${EXPORTS}${name}-${head}.onnx`, join(dir, 'model.onnx'));
  for (const [file, value] of Object.entries(extra))
    await writeFile(join(dir, file), JSON.stringify(value));
  return dir;
}

/** A copy of checkpoint `name` with `extra` files added (onnx_config.json, ...). */
export async function checkpointCopy(
  name: string,
  extra: Record<string, unknown>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `irserve-checkpoint-${name}-`));
  await cp(`${CHECKPOINTS}${name}`, dir, { recursive: true });
  for (const [file, value] of Object.entries(extra))
    await writeFile(join(dir, file), JSON.stringify(value));
  return dir;
}
