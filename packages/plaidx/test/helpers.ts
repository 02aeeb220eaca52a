/** Paths and expected values of the committed fixtures (written by test/fixtures/make-fixtures.py). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
