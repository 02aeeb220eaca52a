import { describe, expect, it } from 'vitest';
import type { Scores } from '../../src/engines/contract.js';
import { cutRanking, emptyScores, topN, zipScores } from '../../src/pipeline/scores.js';

/** The cut as it was first written (pairs sorted by the builtin): what topN must still give. */
function referenceTopN(scores: Scores, n: number): Scores {
  const ids = Object.keys(scores);
  if (ids.length <= n) return scores;
  const entries = ids.map((id): [string, number] => [id, scores[id]!]);
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out = emptyScores();
  for (const [id, score] of entries.slice(0, n)) out[id] = score;
  return out;
}

/** A deterministic pseudo-random sequence (a test that fails must fail again). */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function randomMap(next: () => number, size: number, levels: number): Scores {
  const scores = emptyScores();
  for (let i = 0; i < size; i++) {
    // Few distinct scores: many ties, some at the cut; ids integer-like or not.
    const id = next() < 0.3 ? String(Math.floor(next() * 1000)) : `d${Math.floor(next() * 1000)}`;
    scores[id] = Math.floor(next() * levels) / levels - 0.5;
  }
  return scores;
}

const entriesOf = (scores: Scores) => Object.keys(scores).map((id) => [id, scores[id]]);

describe('topN', () => {
  it('gives what the pair sort gave, order included, on maps with ties and any ids', () => {
    const next = sequence(7);
    for (let round = 0; round < 400; round++) {
      const scores = randomMap(next, 1 + Math.floor(next() * 300), 2 + Math.floor(next() * 50));
      const n = 1 + Math.floor(next() * 250);
      expect(entriesOf(topN(scores, n))).toEqual(entriesOf(referenceTopN(scores, n)));
    }
  });

  it('cuts a map already in ranked order without reordering it', () => {
    const scores = emptyScores();
    for (let i = 0; i < 200; i++)
      scores[`d${String(i).padStart(3, '0')}`] = 1 - Math.floor(i / 3) / 100;
    const top = topN(scores, 100);
    expect(Object.keys(top)).toEqual(Object.keys(scores).slice(0, 100));
    expect(entriesOf(top)).toEqual(entriesOf(referenceTopN(scores, 100)));
  });

  it('breaks ties by the smaller id even when the map lists them the other way', () => {
    const scores = Object.assign(emptyScores(), { c: 2, b: 2, a: 2, z: 3 });
    expect(entriesOf(topN(scores, 3))).toEqual([
      ['z', 3],
      ['a', 2],
      ['b', 2],
    ]);
  });

  it('keeps infinite and negative-zero scores and ranks them like the pair sort', () => {
    const scores = Object.assign(emptyScores(), { a: -Infinity, b: Infinity, c: -0, d: 0, e: 1 });
    expect(entriesOf(topN(scores, 4))).toEqual(entriesOf(referenceTopN(scores, 4)));
    expect(Object.is(topN(scores, 4).c, -0)).toBe(true);
  });

  it('returns the map itself when there is no cut or nothing to cut', () => {
    const scores = Object.assign(emptyScores(), { a: 1, b: 2 });
    expect(topN(scores, undefined)).toBe(scores);
    expect(topN(scores, 2)).toBe(scores);
    expect(topN(emptyScores(), 1)).toEqual({});
  });

  it('keeps a document named __proto__ as an ordinary id', () => {
    const scores = emptyScores();
    scores['__proto__'] = 5;
    scores.a = 1;
    scores.b = 3;
    expect(entriesOf(topN(scores, 2))).toEqual([
      ['__proto__', 5],
      ['b', 3],
    ]);
  });
});

describe('cutRanking', () => {
  it("cuts as topN does, and any keys it hands on are the result's Object.keys", () => {
    const next = sequence(11);
    let handedOn = 0;
    for (let round = 0; round < 400; round++) {
      const scores = randomMap(next, 1 + Math.floor(next() * 300), 2 + Math.floor(next() * 50));
      const n = next() < 0.1 ? undefined : 1 + Math.floor(next() * 250);
      const known = next() < 0.5 ? Object.keys(scores) : undefined;
      const cut = cutRanking(scores, n, known);
      expect(entriesOf(cut.scores)).toEqual(entriesOf(topN(scores, n)));
      if (cut.keys !== undefined) {
        handedOn++;
        expect(cut.keys).toEqual(Object.keys(cut.scores));
      }
      if (cut.ranked) {
        const values = Object.keys(cut.scores).map((id) => cut.scores[id]!);
        expect(values.every((v, i) => i === 0 || v <= values[i - 1]!)).toBe(true);
      }
    }
    expect(handedOn).toBeGreaterThan(100);
  });

  it('hands on the kept ids of a cut when none begins with a digit, else no keys', () => {
    const plain = Object.assign(emptyScores(), { b: 1, a: 3, c: 2, d: 0 });
    expect(cutRanking(plain, 2, undefined).keys).toEqual(['a', 'c']);
    const numeric = Object.assign(emptyScores(), { b: 1, 51: 3, c: 2, d: 0 });
    expect(cutRanking(numeric, 2, undefined).keys).toBeUndefined();
    // Nothing cut: the keys given (or read) are the map's own.
    expect(cutRanking(numeric, 9, ['51', 'b', 'c', 'd']).keys).toEqual(['51', 'b', 'c', 'd']);
    expect(cutRanking(numeric, 9, undefined).keys).toEqual(['51', 'b', 'c', 'd']);
    expect(cutRanking(numeric, undefined, undefined)).toEqual({
      scores: numeric,
      keys: undefined,
      ranked: false,
    });
  });

  it('says a cut map is ranked when its key order is best first, and passes it on otherwise', () => {
    const plain = Object.assign(emptyScores(), { b: 1, a: 3, c: 2, d: 0 });
    expect(cutRanking(plain, 2, undefined).ranked).toBe(true);
    const numeric = Object.assign(emptyScores(), { b: 1, 51: 3, c: 2, d: 0 });
    expect(cutRanking(numeric, 2, undefined).ranked).toBe(false);
    // Nothing cut: what the caller knew.
    expect(cutRanking(plain, 9, undefined).ranked).toBe(false);
    expect(cutRanking(plain, 9, undefined, true).ranked).toBe(true);
    expect(cutRanking(plain, undefined, undefined, true).ranked).toBe(true);
    // NaN (which no checked result holds) is never called ranked.
    const odd = Object.assign(emptyScores(), { a: NaN, b: 1, c: 0 });
    expect(cutRanking(odd, 2, undefined).ranked).toBe(false);
  });
});

describe('zipScores', () => {
  it('puts each score on the id at its index', () => {
    expect(entriesOf(zipScores(['z', 'a', '7'], [1, 3, 2]))).toEqual([
      ['7', 2],
      ['z', 1],
      ['a', 3],
    ]);
  });
});
