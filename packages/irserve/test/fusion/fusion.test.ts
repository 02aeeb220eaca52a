import { describe, expect, it } from 'vitest';
import { isEngineClass, rolesOf, type Scores } from '../../src/engines/contract.js';
import {
  Borda,
  CombMNZ,
  FUSION_ENGINES,
  MinMaxFusion,
  RRF,
  ScoreFusion,
  WeightedRRF,
  ZScoreFusion,
  ranksOf,
} from '../../src/engines/fusion/index.js';
import { RANKING_KEYS } from '../../src/engines/fusion/rankings.js';

/** Two rankings with a tie in the second: A = a 4, b 2, c 1; B = c 9, a 3, d 3. */
const A: Scores = { a: 4, b: 2, c: 1 };
const B: Scores = { c: 9, a: 3, d: 3 };
const fuse = (
  rule: { fuse(r: never): Scores },
  rankings: Scores[],
  extra: Record<string, unknown> = {},
) => rule.fuse({ query: 'q', rankings, ...extra } as never);

function close(actual: Scores, expected: Scores): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [id, value] of Object.entries(expected)) expect(actual[id], id).toBeCloseTo(value, 12);
}

describe('ranks', () => {
  it('rank from 1 by descending score; ties share the best rank (1, 2, 2, 4)', () => {
    expect(Object.fromEntries(ranksOf({ x: 1, y: 5, z: 3, w: 3 }))).toEqual({
      y: 1,
      z: 2,
      w: 2,
      x: 4,
    });
  });

  it('a map already best first ranks (and orders) exactly as the same map shuffled', () => {
    const bestFirst: Scores = { a: 9, b: 7, c: 7, d: 2, e: -1, f: -Infinity };
    const shuffled: Scores = { d: 2, f: -Infinity, a: 9, e: -1, b: 7, c: 7 };
    const expected = [
      ['a', 1],
      ['b', 2],
      ['c', 2],
      ['d', 4],
      ['e', 5],
      ['f', 6],
    ];
    expect([...ranksOf(bestFirst)]).toEqual(expected);
    expect([...ranksOf(shuffled)]).toEqual(expected);
    // Integer-like ids come first in a map's own order, whatever the insertion order.
    expect([...ranksOf({ x: 5, 7: 3, 3: 1 })]).toEqual([
      ['x', 1],
      ['7', 2],
      ['3', 3],
    ]);
  });
});

describe('every rule (hand-computed)', () => {
  it('RRF: sum of 1 / (60 + rank)', () => {
    // ranks: A a1 b2 c3; B c1 a2 d2
    close(fuse(new RRF(), [A, B]), {
      a: 1 / 61 + 1 / 62,
      b: 1 / 62,
      c: 1 / 63 + 1 / 61,
      d: 1 / 62,
    });
  });

  it('RRF honours rrf_k (RoutIR used k = 0)', () => {
    close(fuse(new RRF(), [A, B], { rrf_k: 0 }), {
      a: 1 + 1 / 2,
      b: 1 / 2,
      c: 1 / 3 + 1,
      d: 1 / 2,
    });
  });

  it('WeightedRRF: sum of w_i / (k + rank)', () => {
    close(fuse(new WeightedRRF(), [A, B], { weights: [2, 0.5] }), {
      a: 2 / 61 + 0.5 / 62,
      b: 2 / 62,
      c: 2 / 63 + 0.5 / 61,
      d: 0.5 / 62,
    });
    close(fuse(new WeightedRRF(), [A, B]), fuse(new RRF(), [A, B]));
  });

  it('WeightedRRF: one weight per branch when rankings are branches x sub-queries', () => {
    const out = fuse(new WeightedRRF(), [{ x: 1 }, { y: 1 }, { z: 1 }, { w: 1 }], {
      weights: [1, 3],
      branches: 2,
    });
    close(out, { x: 1 / 61, y: 1 / 61, z: 3 / 61, w: 3 / 61 });
  });

  it('ScoreFusion: sum of raw scores (RoutIR-compatible)', () => {
    expect(fuse(new ScoreFusion(), [A, B])).toEqual({ a: 7, b: 2, c: 10, d: 3 });
  });

  it('MinMaxFusion: sum of (s - min) / (max - min)', () => {
    // A: min 1, max 4; B: min 3, max 9
    close(fuse(new MinMaxFusion(), [A, B]), { a: 1 + 0, b: 1 / 3, c: 0 + 1, d: 0 });
  });

  it('ZScoreFusion: sum of (s - mean) / population stddev', () => {
    const meanA = 7 / 3;
    const sdA = Math.sqrt(((4 - meanA) ** 2 + (2 - meanA) ** 2 + (1 - meanA) ** 2) / 3);
    const meanB = 5;
    const sdB = Math.sqrt((16 + 4 + 4) / 3);
    close(fuse(new ZScoreFusion(), [A, B]), {
      a: (4 - meanA) / sdA + (3 - meanB) / sdB,
      b: (2 - meanA) / sdA,
      c: (1 - meanA) / sdA + (9 - meanB) / sdB,
      d: (3 - meanB) / sdB,
    });
  });

  it('CombMNZ: (sum of min-max scores) x number of rankings holding the document', () => {
    close(fuse(new CombMNZ(), [A, B]), { a: 1 * 2, b: (1 / 3) * 1, c: 1 * 2, d: 0 });
  });

  it('Borda: n - rank + 1 points per ranking, ties sharing the best rank', () => {
    // A (n 3): a 3, b 2, c 1; B (n 3): c 3, a 2, d 2
    expect(fuse(new Borda(), [A, B])).toEqual({ a: 5, b: 2, c: 4, d: 2 });
  });
});

describe('degenerate inputs', () => {
  const rules = FUSION_ENGINES.map(
    (Rule) => new (Rule as never as new () => { fuse(r: never): Scores })(),
  );

  it.each(FUSION_ENGINES.map((rule, index) => [rule.name, index] as const))(
    '%s: no rankings, or only empty ones, give {}',
    (_name, index) => {
      expect(fuse(rules[index]!, [])).toEqual({});
      expect(fuse(rules[index]!, [{}, {}])).toEqual({});
    },
  );

  it.each(FUSION_ENGINES.map((rule, index) => [rule.name, index] as const))(
    '%s: a single ranking keeps its order; an empty ranking beside it changes nothing',
    (_name, index) => {
      const single = fuse(rules[index]!, [{ a: 3, b: 2, c: 1 }]);
      const order = Object.entries(single)
        .sort((x, y) => y[1] - x[1])
        .map(([id]) => id);
      expect(order).toEqual(['a', 'b', 'c']);
      expect(fuse(rules[index]!, [{ a: 3, b: 2, c: 1 }, {}])).toEqual(single);
    },
  );

  it('ties give equal fused scores whatever the key order', () => {
    for (const rule of rules) {
      const one = fuse(rule, [{ x: 1, y: 1, z: 0 }]);
      const two = fuse(rule, [{ z: 0, y: 1, x: 1 }]);
      expect(one).toEqual(two);
      expect(one.x).toBe(one.y);
    }
  });

  it('a ranking with equal scores: min-max gives 1, z-score gives 0', () => {
    expect(fuse(new MinMaxFusion(), [{ a: 5, b: 5 }])).toEqual({ a: 1, b: 1 });
    expect(fuse(new ZScoreFusion(), [{ a: 5 }])).toEqual({ a: 0 });
  });

  it('a document id like __proto__ is fused like any other', () => {
    const out = fuse(new ScoreFusion(), [
      { ['__proto__']: 1 },
      JSON.parse('{"__proto__": 2}') as Scores,
    ]);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.entries(out)).toEqual([['__proto__', 3]]);
  });
});

describe('parameters', () => {
  it.each([-1, 'x', Number.NaN, Infinity])(
    'rrf_k %s is ERR_BAD_REQUEST naming the field',
    (rrf_k) => {
      expect(() => fuse(new RRF(), [A], { rrf_k })).toThrow(/rrf_k: must be a non-negative number/);
    },
  );

  it('weights of the wrong length or sign are ERR_BAD_REQUEST', () => {
    expect(() => fuse(new WeightedRRF(), [A, B], { weights: [1] })).toThrow(
      /weights: has 1 entries for 2 rankings/,
    );
    expect(() => fuse(new WeightedRRF(), [A, B], { weights: [1, -1] })).toThrow(/non-negative/);
    expect(() => fuse(new WeightedRRF(), [A, B], { weights: 'x' })).toThrow(/weights/);
  });
});

describe('as engines', () => {
  it('are engine classes serving exactly the fuse role, under their class names', () => {
    expect(FUSION_ENGINES.map((rule) => rule.name)).toEqual([
      'RRF',
      'ScoreFusion',
      'CombMNZ',
      'MinMaxFusion',
      'ZScoreFusion',
      'WeightedRRF',
      'Borda',
    ]);
    for (const rule of FUSION_ENGINES) {
      expect(isEngineClass(rule)).toBe(true);
      expect(rolesOf(rule)).toEqual(['fuse']);
    }
  });

  it('fuseBatch fuses each request on its own', async () => {
    const out = await new RRF().fuseBatch([
      { query: 'q', rankings: [{ a: 1 }] },
      { query: 'q', rankings: [{ b: 1 }], rrf_k: 0 },
    ]);
    expect(out).toEqual([{ a: 1 / 61 }, { b: 1 }]);
    expect(new RRF().canFuse).toBe(true);
  });
});

describe('rankings whose keys the caller hands on (RANKING_KEYS)', () => {
  /** Rankings with ties, integer-like ids and maps not best first. */
  function rankingsOf(seed: number): Scores[] {
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    return Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
      const ranking: Scores = Object.create(null) as Scores;
      for (let i = Math.floor(next() * 120); i > 0; i--) {
        const id = next() < 0.2 ? String(Math.floor(next() * 300)) : `d${Math.floor(next() * 300)}`;
        ranking[id] = Math.floor(next() * 20);
      }
      return ranking;
    });
  }

  it('RRF, WeightedRRF and Borda give the same map, key order included, as without them', () => {
    const entries = (scores: Scores) => Object.keys(scores).map((id) => [id, scores[id]]);
    for (let seed = 1; seed <= 60; seed++) {
      const rankings = rankingsOf(seed);
      const keys = rankings.map((ranking, i) => (i % 3 === 2 ? undefined : Object.keys(ranking)));
      const weights = { weights: rankings.map((_, i) => i + 1) };
      for (const [rule, extra] of [
        [new RRF(), {}],
        [new WeightedRRF(), weights],
        [new Borda(), {}],
      ] as const) {
        const plain = fuse(rule, rankings, extra);
        const handed = fuse(rule, rankings, { ...extra, [RANKING_KEYS]: keys });
        expect(entries(handed)).toEqual(entries(plain));
      }
    }
  });

  it('the rank rules keep the keys of what they return (resultKeys) unless an id may be integer-like', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const rankings = rankingsOf(seed);
      for (const rule of [new RRF(), new WeightedRRF(), new Borda()]) {
        const fused = fuse(rule, rankings);
        const keys = rule.resultKeys(fused);
        const integerLike = Object.keys(fused).some((id) => /^[0-9]/.test(id));
        if (integerLike) expect(keys).toBeUndefined();
        else expect(keys).toEqual(Object.keys(fused));
      }
    }
    const rrf = new RRF();
    expect(rrf.resultKeys(fuse(rrf, [{ x: 1, y: 2 }]))).toEqual(['y', 'x']);
    expect(rrf.resultKeys(fuse(rrf, [{ x: 1, 7: 2 }]))).toBeUndefined();
    expect(rrf.resultKeys({ x: 1 })).toBeUndefined();
  });

  it('keys that do not line up with the rankings are not used', () => {
    const wrong = { [RANKING_KEYS]: [['x', 'y']] };
    expect(fuse(new RRF(), [A, B], wrong)).toEqual(fuse(new RRF(), [A, B]));
    expect(fuse(new RRF(), [A, B], { [RANKING_KEYS]: 'a' })).toEqual(fuse(new RRF(), [A, B]));
  });
});
