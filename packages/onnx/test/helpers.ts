/** Paths of the committed fixtures (written by fixtures/make-models.py and fixtures/make-t5.py). */
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const MODELS = `${FIXTURES}models/`;
export const TINY_BERT = `${MODELS}tiny-bert`;
export const TINY_CROSS_ENCODER = `${MODELS}tiny-cross-encoder`;
export const TINY_MLM = `${MODELS}tiny-mlm`;
export const TINY_YES_NO = `${MODELS}tiny-yes-no`;
export const KV_CACHE = `${MODELS}kv-cache`;
export const TINY_T5 = `${MODELS}tiny-t5`;
export const UNIGRAM_TOKENIZER = `${FIXTURES}tokenizers/unigram/tokenizer.json`;

/** The largest absolute difference between two vectors. */
export function maxDiff(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return a.length === b.length ? worst : Infinity;
}
