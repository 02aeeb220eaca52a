/** Paths and expected values of the committed fixtures (written by test/fixtures/make-fixtures.py). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlaidIndex } from '../src/index/plaid-index.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface Expected {
  nbits: number;
  dim: number;
  doclens: number[];
  codes: number[];
  centroids: number[][];
  bucket_cutoffs: number[];
  bucket_weights: number[];
  decompressed: number[][];
  queries: number[][][];
  maxsim: number[][];
}

export function expected(nbits: 1 | 2 | 4): Expected {
  return JSON.parse(
    readFileSync(`${FIXTURES}index-nbits${nbits}.expected.json`, 'utf8'),
  ) as Expected;
}

export function indexDir(nbits: 1 | 2 | 4): string {
  return `${FIXTURES}index-nbits${nbits}`;
}

/** Every token's code and packed residual, in passage order (read through `index.tokens`). */
export function allTokens(index: PlaidIndex): { codes: Int32Array; residuals: Uint8Array } {
  const { packedDim } = index.codec;
  const codes = new Int32Array(index.numEmbeddings);
  const residuals = new Uint8Array(index.numEmbeddings * packedDim);
  for (let p = 0; p < index.numPassages; p++) {
    codes.set(index.tokens.codes(p), index.docOffsets[p]);
    residuals.set(index.tokens.residuals(p), index.docOffsets[p]! * packedDim);
  }
  return { codes, residuals };
}
