/**
 * faiss-style index factory strings. Spellings are faiss's and case-sensitive, as in faiss, so
 * a string copied from a faiss script means the same index here.
 */

import type { RowStorage } from './row-codec.js';

export type HnswQuantization = 'f32' | 'f16' | 'i8';

export type FactorySpec =
  | { kind: 'flat'; factory: string; storage: RowStorage }
  | { kind: 'hnsw'; factory: string; m: number; quantization: HnswQuantization }
  | ({ kind: 'ivf-flat'; factory: string; nlist: number; storage: RowStorage } & CoarseQuantizer)
  | ({ kind: 'ivf-pq'; factory: string; nlist: number; pqM: number; pqBits: 8 } & CoarseQuantizer);

/**
 * How an IVF build assigns vectors to centroids: by exact comparison with every centroid
 * (`IVF<n>`), or by searching an HNSW graph over the centroids (`IVF<n>_HNSW<M>`, faiss's
 * spelling: its M is `quantizerM`). The index written is the same kind either way.
 */
export interface CoarseQuantizer {
  quantizerM?: number;
}

/** The forms `parseFactory` accepts, quoted in its error message. */
export const SUPPORTED_FACTORIES: readonly string[] = [
  'Flat',
  'IDMap,Flat',
  'SQfp16',
  'SQ8',
  'HNSW<M>',
  'HNSW<M>,Flat',
  'HNSW<M>,SQ8',
  'HNSW<M>,SQfp16',
  'IVF<nlist>,Flat',
  'IVF<nlist>,SQfp16',
  'IVF<nlist>,SQ8',
  'IVF<nlist>,PQ<m>',
  'IVF<nlist>,PQ<m>x8',
  'IVF<nlist>_HNSW<M>,Flat',
  'IVF<nlist>_HNSW<M>,SQfp16',
  'IVF<nlist>_HNSW<M>,SQ8',
  'IVF<nlist>_HNSW<M>,PQ<m>',
  'IVF<nlist>_HNSW<M>,PQ<m>x8',
];

const HNSW = /^HNSW([0-9]+)(?:,(Flat|SQ8|SQfp16))?$/;
const IVF = /^IVF([0-9]+)(?:_HNSW([0-9]+))?,(?:(Flat|SQfp16|SQ8)|PQ([0-9]+)(?:x(8))?)$/;
/** The storage a factory's scalar-quantizer part names. */
const STORAGE: Record<string, RowStorage> = { Flat: 'f32', SQfp16: 'f16', SQ8: 'sq8' };

/**
 * Parses a factory string.
 *
 * @example parseFactory('HNSW32,SQ8') // { kind: 'hnsw', m: 32, quantization: 'i8', ... }
 * @example parseFactory('IVF4096_HNSW32,PQ96') // { kind: 'ivf-pq', nlist: 4096, quantizerM: 32, ... }
 * @throws Error listing the supported forms when `s` is not one of them.
 */
export function parseFactory(s: string): FactorySpec {
  const factory = s.trim();
  if (factory === 'Flat' || factory === 'IDMap,Flat')
    return { kind: 'flat', factory, storage: 'f32' };
  if (factory === 'SQfp16' || factory === 'SQ8')
    return { kind: 'flat', factory, storage: STORAGE[factory]! };
  const hnsw = HNSW.exec(factory);
  if (hnsw) {
    const m = checkInt(Number(hnsw[1]), 2, 512, 'HNSW M', s);
    const quantization = hnsw[2] === 'SQ8' ? 'i8' : hnsw[2] === 'SQfp16' ? 'f16' : 'f32';
    return { kind: 'hnsw', factory, m, quantization };
  }
  const ivf = IVF.exec(factory);
  if (ivf) {
    const nlist = checkInt(Number(ivf[1]), 1, 1 << 24, 'IVF nlist', s);
    const quantizer =
      ivf[2] === undefined ? {} : { quantizerM: checkInt(Number(ivf[2]), 2, 512, 'HNSW M', s) };
    if (ivf[3] !== undefined)
      return { kind: 'ivf-flat', factory, nlist, storage: STORAGE[ivf[3]]!, ...quantizer };
    const pqM = checkInt(Number(ivf[4]), 1, 4096, 'PQ m', s);
    return { kind: 'ivf-pq', factory, nlist, pqM, pqBits: 8, ...quantizer };
  }
  throw new Error(
    `unsupported index factory string ${JSON.stringify(s)}; supported forms (case-sensitive, ` +
      `as in faiss): ${SUPPORTED_FACTORIES.join(', ')}`,
  );
}

function checkInt(value: number, min: number, max: number, what: string, s: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${what} in ${JSON.stringify(s)} must be between ${min} and ${max}`);
  }
  return value;
}
