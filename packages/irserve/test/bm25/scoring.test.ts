import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BM25 } from '../../src/engines/bm25/index.js';
import { engineContext, memoryCatalog, MemoryTextView } from './fake-view.js';

// Terms after analysis (porter, Lucene stop words):
//   d1: "wing lift wing"          -> wing x2, lift        (length 3)
//   d2: "the lift of a rotor"     -> lift, rotor          (length 2)
//   d3: "supersonic flow"         -> supersonic, flow     (length 2)
//   d4: ""                        -> (empty: not counted in N)
const DOCS = [
  { id: 'd1', text: 'wing lift wing' },
  { id: 'd2', text: 'the lift of a rotor' },
  { id: 'd3', text: 'supersonic flow' },
  { id: 'd4', text: '' },
];

/**
 * Hand-written BM25 (Lucene 9 form): idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)), the tf
 * share rounded to float32 as the index stores it (Lucene scores in float32 throughout).
 */
function bm25(tf: number, df: number, dl: number, k1 = 0.9, b = 0.4): number {
  const N = 3;
  const avgdl = (3 + 2 + 2) / 3;
  const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
  return idf * Math.fround(tf / (tf + k1 * (1 - b + (b * dl) / avgdl)));
}

describe('BM25 scoring', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bm25-scoring-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const engine = (config: Record<string, unknown> = {}) =>
    new BM25({
      name: 'bm25',
      config: { collection: 'c', ...config },
      context: engineContext(memoryCatalog('c', [new MemoryTextView(DOCS)]), dir),
    });

  it('matches hand-computed Lucene BM25 scores', async () => {
    const bm = engine();
    await bm.start();
    const [scores] = await bm.searchBatch([{ query: 'wing lift', limit: 10 }]);
    expect(Object.keys(scores!).sort()).toEqual(['d1', 'd2']);
    expect(scores!.d1).toBeCloseTo(bm25(2, 1, 3) + bm25(1, 2, 3), 9);
    expect(scores!.d2).toBeCloseTo(bm25(1, 2, 2), 9);
    await bm.close();
  });

  it('weighs a repeated query term by its count (Anserini bag of words)', async () => {
    const bm = engine();
    const [scores] = await bm.searchBatch([{ query: 'rotor rotor', limit: 10 }]);
    expect(scores!.d2).toBeCloseTo(2 * bm25(1, 1, 2), 9);
    await bm.close();
  });

  it('uses k1 and b from the config', async () => {
    const bm = engine({ k1: 1.2, b: 0.75 });
    const [scores] = await bm.searchBatch([{ query: 'flows', limit: 10 }]);
    expect(scores).toEqual({ d3: expect.closeTo(bm25(1, 1, 2, 1.2, 0.75), 9) });
    await bm.close();
  });

  it('ranks by score and honours limit', async () => {
    const bm = engine();
    const [scores] = await bm.searchBatch([{ query: 'lift', limit: 1 }]);
    expect(Object.keys(scores!)).toEqual(['d2']);
    await bm.close();
  });

  it('returns nothing for a query with no indexed term', async () => {
    const bm = engine();
    const results = await bm.searchBatch([
      { query: 'the of a', limit: 5 },
      { query: 'helicopter', limit: 5 },
    ]);
    expect(results).toEqual([{}, {}]);
    await bm.close();
  });

  it('scores passages with the collection statistics (score role)', async () => {
    const bm = engine();
    const [scores] = await bm.scoreBatch([
      { query: 'wing lift', passages: ['wing lift wing', 'a rotor', 'lift lift'] },
    ]);
    expect(scores![0]).toBeCloseTo(bm25(2, 1, 3) + bm25(1, 2, 3), 9);
    expect(scores![1]).toBe(0);
    expect(scores![2]).toBeCloseTo(bm25(2, 2, 2), 9);
    await bm.close();
  });

  it('rejects a limit above 10,000 and binary passages', async () => {
    const bm = engine();
    await expect(bm.searchBatch([{ query: 'lift', limit: 10_001 }])).rejects.toMatchObject({
      code: 'ERR_BAD_REQUEST',
    });
    await expect(
      bm.scoreBatch([{ query: 'lift', passages: [[new Uint8Array(1)]] }]),
    ).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
    await bm.close();
  });
});
