import { describe, expect, it } from 'vitest';
import { decompressRow } from '../../src/index/codec.js';
import { openPlaidIndex } from '../../src/index/plaid-index.js';
import { allTokens, expected, indexDir } from '../helpers.js';

describe('openPlaidIndex on indexes written by PyTorch and numpy', () => {
  for (const [nbits, storage] of [
    [1, 'auto'],
    [2, 'auto'],
    [4, 'auto'],
    [1, 'paged'],
    [4, 'paged'],
  ] as const) {
    it(`nbits ${nbits}, ${storage === 'auto' ? 'in memory' : 'served from the files'}: codes, IVF and every decompressed embedding match ColBERT's decompression`, async () => {
      const want = expected(nbits);
      const index = await openPlaidIndex(indexDir(nbits), { storage });
      expect(index.tokens.storage).toBe(storage === 'auto' ? 'memory' : 'paged');
      const { codes, residuals } = allTokens(index);
      expect(index.layout).toBe(nbits === 4 ? 'npy' : 'colbert');
      expect(index.nbits).toBe(nbits);
      expect(index.dim).toBe(want.dim);
      expect(Array.from(index.doclens)).toEqual(want.doclens);
      expect(Array.from(codes)).toEqual(want.codes);
      const out = new Float32Array(want.dim);
      want.decompressed.forEach((row, i) => {
        decompressRow(index.codec, index.centroids, codes[i]!, residuals, i, out, 0);
        row.forEach((v, d) => expect(out[d]).toBeCloseTo(v, 5));
      });
      // Every passage is listed under each centroid one of its tokens uses, and nowhere else.
      for (let p = 0; p < index.numPassages; p++) {
        const used = new Set(want.codes.slice(index.docOffsets[p], index.docOffsets[p + 1]));
        for (let c = 0; c < index.numCentroids; c++) {
          const list = Array.from(
            index.ivfPids.subarray(index.ivfOffsets[c], index.ivfOffsets[c + 1]),
          );
          expect(list.includes(p)).toBe(used.has(c));
        }
      }
      await index.close();
    });
  }
});
