import { describe, expect, it } from 'vitest';
import { parseFactory, SUPPORTED_FACTORIES } from '../../src/vector-index/index.js';

describe('parseFactory', () => {
  it.each([
    ['Flat', { kind: 'flat', storage: 'f32' }],
    ['IDMap,Flat', { kind: 'flat', storage: 'f32' }],
    ['SQfp16', { kind: 'flat', storage: 'f16' }],
    ['SQ8', { kind: 'flat', storage: 'sq8' }],
    ['HNSW32', { kind: 'hnsw', m: 32, quantization: 'f32' }],
    ['HNSW16,Flat', { kind: 'hnsw', m: 16, quantization: 'f32' }],
    ['HNSW32,SQ8', { kind: 'hnsw', m: 32, quantization: 'i8' }],
    ['HNSW64,SQfp16', { kind: 'hnsw', m: 64, quantization: 'f16' }],
    ['IVF1024,Flat', { kind: 'ivf-flat', nlist: 1024, storage: 'f32' }],
    ['IVF4096,SQfp16', { kind: 'ivf-flat', nlist: 4096, storage: 'f16' }],
    ['IVF4096,SQ8', { kind: 'ivf-flat', nlist: 4096, storage: 'sq8' }],
    ['IVF256,PQ64', { kind: 'ivf-pq', nlist: 256, pqM: 64, pqBits: 8 }],
    ['IVF256,PQ32x8', { kind: 'ivf-pq', nlist: 256, pqM: 32, pqBits: 8 }],
    ['IVF4096_HNSW32,PQ96', { kind: 'ivf-pq', nlist: 4096, pqM: 96, quantizerM: 32 }],
    ['IVF4096_HNSW32,PQ96x8', { kind: 'ivf-pq', nlist: 4096, pqM: 96, quantizerM: 32 }],
    ['IVF65536_HNSW16,Flat', { kind: 'ivf-flat', nlist: 65536, quantizerM: 16, storage: 'f32' }],
    ['IVF1024_HNSW32,SQ8', { kind: 'ivf-flat', nlist: 1024, quantizerM: 32, storage: 'sq8' }],
    ['IVF1024_HNSW32,SQfp16', { kind: 'ivf-flat', quantizerM: 32, storage: 'f16' }],
  ])('%s', (s, expected) => {
    expect(parseFactory(s)).toMatchObject({ ...expected, factory: s });
    if (!s.includes('_HNSW')) expect(parseFactory(s)).not.toHaveProperty('quantizerM');
  });

  it.each([
    'flat',
    'hnsw32',
    'HNSW',
    'HNSW1',
    'HNSW32,SQ4',
    'SQ4',
    'IVF64,SQ6',
    'IVF,Flat',
    'IVF0,Flat',
    'IVF64,PQ8x4',
    'PQ2048x4fs',
    'OPQ16,IVF64,PQ16',
    'IVF64_hnsw32,Flat',
    'IVF64_HNSW,Flat',
    'IVF64_HNSW1,Flat',
    'IVF64_NSG32,Flat',
    'IVF64_HNSW32',
    '',
  ])('rejects %j, listing the supported forms', (s) => {
    expect(() => parseFactory(s)).toThrow(/supported forms|must be between/);
    if (!/^(HNSW1|IVF0,Flat|IVF64_HNSW1,Flat)$/.test(s)) {
      expect(() => parseFactory(s)).toThrow(SUPPORTED_FACTORIES.join(', '));
    }
  });
});
