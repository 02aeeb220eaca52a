/**
 * The graph a CrossEncoderReranker asks the pool for when its folder is a checkpoint: a causal
 * language model (…ForCausalLM, such as Qwen3-Reranker) is a yes/no reranker and needs only the
 * next-token logits of its two answer tokens; anything else is scored by its classification head.
 * An ONNX folder ignores the request and runs its own graph.
 */
import { join } from 'node:path';
import { readJsonObject } from '../folder/json-file.js';
import type { AcquireOptions } from '../runtime/session-pool.js';
import type { CrossEncoderConfig } from './config.js';

/**
 * `head` (and `tokens`: yes then no) for the folder at `folder`.
 *
 * @example await rerankerGraph('/models/qwen3-reranker', settings) // { head: 'next-token', tokens: ['yes', 'no'] }
 */
export async function rerankerGraph(
  folder: string,
  settings: CrossEncoderConfig,
): Promise<Pick<AcquireOptions, 'head' | 'tokens'>> {
  const config = (await readJsonObject(folder, join(folder, 'config.json'))) ?? {};
  const architectures = Array.isArray(config.architectures) ? config.architectures : [];
  const causal = architectures.some((a) => typeof a === 'string' && a.endsWith('ForCausalLM'));
  const yesNo = settings.mode === 'yes_no' || (settings.mode === 'auto' && causal);
  return yesNo
    ? { head: 'next-token', tokens: [settings.yes_token, settings.no_token] }
    : { head: 'classifier' };
}
