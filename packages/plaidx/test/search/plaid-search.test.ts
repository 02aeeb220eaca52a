import { describe, expect, it } from 'vitest';
import { openPlaidIndex } from '../../src/index/plaid-index.js';
import { depthFor, resolveDepth } from '../../src/search/depth.js';
import { plaidSearch } from '../../src/search/plaid-search.js';
import { maxSim } from '../../src/search/maxsim.js';
import { tokenMatrix } from '../../src/search/query.js';
import { expected, indexDir, type Expected } from '../helpers.js';

/** MaxSim over ColBERT's decompressed embeddings, L2-normalised as `IndexScorer.score_pids` does. */
function colbertMaxSim(want: Expected, rows: number[][]): number[] {
  const normalised = want.decompressed.map((row) => {
    const norm = Math.hypot(...row);
    return row.map((x) => x / Math.max(norm, 1e-12));
  });
  const docs = tokenMatrix(normalised).vectors;
  const query = tokenMatrix(rows);
  let offset = 0;
  return want.doclens.map((length) => {
    const score = maxSim(query, docs, offset, length);
    offset += length;
    return score;
  });
}

const everything = { ncells: 1000, centroid_score_threshold: -1e9, ndocs: 4000 };

describe('plaidSearch', () => {
  for (const nbits of [1, 2, 4] as const) {
    it(`nbits ${nbits}: at full depth, scores equal MaxSim over ColBERT's decompressed, normalised embeddings`, async () => {
      const want = expected(nbits);
      const index = await openPlaidIndex(indexDir(nbits));
      want.queries.forEach((rows) => {
        const hits = plaidSearch(index, tokenMatrix(rows), everything, index.numPassages);
        expect(hits.pids).toHaveLength(index.numPassages);
        const exact = colbertMaxSim(want, rows);
        hits.pids.forEach((pid, i) => expect(hits.scores[i]).toBeCloseTo(exact[pid]!, 4));
        const order = exact
          .map((s, pid) => ({ s, pid }))
          .sort((a, b) => b.s - a.s)
          .map((x) => x.pid);
        expect(hits.pids.slice(0, 3)).toEqual(order.slice(0, 3));
      });
    });
  }

  it('a subset mask keeps other passages out before scoring', async () => {
    const index = await openPlaidIndex(indexDir(2));
    const allowed = new Uint8Array(index.numPassages);
    allowed[3] = allowed[7] = 1;
    const hits = plaidSearch(index, tokenMatrix(expected(2).queries[0]!), everything, 10, allowed);
    expect([...hits.pids].sort()).toEqual([3, 7]);
  });

  it('shallow settings return at most k passages, best first', async () => {
    const index = await openPlaidIndex(indexDir(2));
    const hits = plaidSearch(index, tokenMatrix(expected(2).queries[1]!), depthFor(3), 3);
    expect(hits.pids.length).toBeLessThanOrEqual(3);
    expect([...hits.scores].sort((a, b) => b - a)).toEqual(hits.scores);
  });
});

describe('depth rules', () => {
  it("follow RoutIR's table by k and let overrides win in order", () => {
    expect(depthFor(10)).toEqual({ ncells: 1, centroid_score_threshold: 0.5, ndocs: 256 });
    expect(depthFor(11)).toEqual({ ncells: 2, centroid_score_threshold: 0.45, ndocs: 1024 });
    expect(depthFor(100).ndocs).toBe(1024);
    expect(depthFor(101)).toEqual({ ncells: 2, centroid_score_threshold: 0.4, ndocs: 2048 });
    expect(resolveDepth(10, { ndocs: 512 }, { ncells: 4 })).toEqual({
      ncells: 4,
      centroid_score_threshold: 0.5,
      ndocs: 512,
    });
  });
});
