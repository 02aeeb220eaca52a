/**
 * Measures against hand-computed values (graded qrels, ties, unjudged documents, negative
 * grades, queries with no relevant document) and against a small independent implementation of
 * trec_eval's definitions written here, on random runs and qrels.
 */
import { describe, expect, it } from 'vitest';
import { parseMeasure } from '../../src/eval/measure-name.js';
import { computeMeasure, RankedQuery } from '../../src/eval/measures.js';
import { evaluate } from '../../src/eval/metrics.js';
import { random as seededRandom } from '../helpers/random.js';

const judged = new Map([
  ['d1', 3],
  ['d2', 0],
  ['d3', 1],
  ['d4', 2],
  ['d9', -1],
]);
// d1 and d5 tie at 4: trec_eval puts the larger id first (d5, unjudged), ir_measures' Judged
// the smaller (d1). trec_eval order: d2 d5 d1 d3 d4 d9.
const scores = { d2: 5, d1: 4, d5: 4, d3: 3, d4: 1, d9: 0.5 };
const value = (name: string, judgements = judged, run: Record<string, number> = scores) =>
  computeMeasure(parseMeasure(name), new RankedQuery(run), judgements);
const log2 = Math.log2;

describe('measures by hand', () => {
  it('nDCG with graded gains, ties in trec_eval order, a negative grade as gain 0', () => {
    const idcg = 3 + 2 / log2(3) + 1 / log2(4);
    const dcg = 3 / log2(4) + 1 / log2(5) + 2 / log2(6);
    expect(value('nDCG@10')).toBeCloseTo(dcg / idcg, 14);
    expect(value('nDCG')).toBeCloseTo(dcg / idcg, 14);
    expect(value('nDCG@3')).toBeCloseTo(3 / log2(4) / idcg, 14);
    expect(value('nDCG@2')).toBe(0);
    // Grade 1 mapped to gain 0: only grades 2 and 3 count, in the ideal too.
    expect(value('nDCG(gains={1:0})@10')).toBeCloseTo(
      (3 / log2(4) + 2 / log2(6)) / (3 + 2 / log2(3)),
      14,
    );
  });

  it('P@k divides by k; rel=2 counts grades 2 and 3', () => {
    expect(value('P@5')).toBeCloseTo(3 / 5, 14);
    expect(value('P@10')).toBeCloseTo(3 / 10, 14);
    expect(value('P(rel=2)@5')).toBeCloseTo(2 / 5, 14);
    expect(value('P@1')).toBe(0);
  });

  it('R@k, AP, AP@k and RR', () => {
    expect(value('R@2')).toBe(0);
    expect(value('R@3')).toBeCloseTo(1 / 3, 14);
    expect(value('R(rel=2)@3')).toBeCloseTo(1 / 2, 14);
    expect(value('R@1000')).toBe(1);
    expect(value('AP')).toBeCloseTo((1 / 3 + 2 / 4 + 3 / 5) / 3, 14);
    expect(value('MAP')).toBe(value('AP'));
    expect(value('AP(rel=2)')).toBeCloseTo((1 / 3 + 2 / 5) / 2, 14);
    expect(value('AP@4')).toBeCloseTo((1 / 3 + 2 / 4) / 3, 14);
    expect(value('RR')).toBeCloseTo(1 / 3, 14);
    expect(value('RR(rel=3)')).toBeCloseTo(1 / 3, 14);
    expect(value('RR(rel=2)@2')).toBe(0);
    expect(value('Success@1')).toBe(0);
    expect(value('Success@3')).toBe(1);
  });

  it('judged_only drops unjudged and negatively graded documents first (trec_eval -J)', () => {
    // d2 d1 d3 d4
    expect(value('AP(judged_only=True)')).toBeCloseTo((1 / 2 + 2 / 3 + 3 / 4) / 3, 14);
    expect(value('P(judged_only=True)@2')).toBeCloseTo(1 / 2, 14);
  });

  it('Judged@k: ties by ascending id (ir_measures), over min(k, retrieved)', () => {
    expect(value('Judged@2')).toBe(1); // d2 d1
    expect(value('Judged@3')).toBeCloseTo(2 / 3, 14); // d2 d1 d5
    expect(value('Judged@10')).toBeCloseTo(5 / 6, 14); // six retrieved, d5 unjudged
    expect(value('Judged@10', judged, {})).toBe(0);
  });

  it('a query with no relevant document scores 0 on every relevance measure', () => {
    const none = new Map([
      ['d1', 0],
      ['d2', 0],
    ]);
    for (const name of ['nDCG@10', 'P@5', 'R@100', 'AP', 'RR', 'Success@10'])
      expect(value(name, none)).toBe(0);
    expect(value('Judged@2', none)).toBe(1);
  });

  it('evaluate: means over the qrels queries, a query missing from the run counts 0', () => {
    const qrels = new Map([
      ['q1', judged],
      ['q2', new Map([['d1', 0]])],
      ['q3', new Map([['d7', 1]])],
    ]);
    const run = new Map<string, Record<string, number>>([
      ['q1', scores],
      ['q2', { d1: 1 }],
      ['q9', { d1: 1 }],
    ]);
    const result = evaluate(
      run,
      qrels,
      ['AP', 'Judged@10'].map((n) => parseMeasure(n)),
    );
    expect(result.queries).toBe(3);
    expect(result.mean.AP).toBeCloseTo(value('AP') / 3, 14);
    expect(result.mean['Judged@10']).toBeCloseTo((5 / 6 + 1 + 0) / 3, 14);
    expect(result.perQuery.get('q3')).toEqual({ AP: 0, 'Judged@10': 0 });
  });
});

describe('measure names (ir_measures)', () => {
  it('prints canonical names, reads aliases', () => {
    expect(parseMeasure('MAP').name).toBe('AP');
    expect(parseMeasure('MRR').name).toBe('RR');
    expect(parseMeasure('NDCG@10').name).toBe('nDCG@10');
    expect(parseMeasure('P(rel=1)@5').name).toBe('P@5');
    expect(parseMeasure('Precision(rel=2)@5').name).toBe('P(rel=2)@5');
    expect(parseMeasure('nDCG(gains={2:3,0:0,1:1})@10').name).toBe('nDCG(gains={2:3})@10');
    expect(parseMeasure('AP(judged_only=True)').name).toBe('AP(judged_only=True)');
  });

  it('refuses what it cannot compute, saying why', () => {
    expect(() => parseMeasure('P')).toThrow(/P needs a cutoff/);
    expect(() => parseMeasure('nDCG(rel=2)@10')).toThrow(/gains=\{1:0\}/);
    expect(() => parseMeasure('ERR@10')).toThrow(/unknown measure ERR/);
    expect(() => parseMeasure('P(rel=x)@5')).toThrow(/rel must be an integer/);
    expect(() => parseMeasure('Judged(rel=2)@5')).toThrow(/Judged has no parameter rel/);
    expect(() => parseMeasure('nDCG@0')).toThrow(/at least 1/);
  });
});

// ---------------------------------------------------------------------------------------------
// An independent reading of trec_eval (form_res_rels.c, m_*.c), written for this test: the
// ranking as [docno, sim] pairs sorted by sim, then strcmp descending; a relevance vector; each
// measure as the C code computes it.

type Pair = [string, number];
const strcmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function relVector(run: Record<string, number>, qrels: Map<string, number>, judgedOnly: boolean) {
  const pairs: Pair[] = Object.entries(run);
  pairs.sort((p, q) => (p[1] > q[1] ? -1 : p[1] < q[1] ? 1 : strcmp(q[0], p[0])));
  // -1: in the qrels with a negative grade; -2: not in the qrels.
  const rels = pairs.map(([doc]) => (qrels.has(doc) ? Math.max(qrels.get(doc)!, -1) : -2));
  return judgedOnly ? rels.filter((r) => r >= 0) : rels;
}

function reference(name: string, run: Record<string, number>, qrels: Map<string, number>): number {
  const m = parseMeasure(name);
  if (m.family === 'Judged') {
    const pairs: Pair[] = Object.entries(run);
    pairs.sort((p, q) => q[1] - p[1] || strcmp(p[0], q[0]));
    const top = pairs.slice(0, m.cutoff ?? pairs.length);
    return top.length === 0 ? 0 : top.filter(([d]) => qrels.has(d)).length / top.length;
  }
  const rels = relVector(run, qrels, m.judgedOnly);
  const cut = m.cutoff ?? rels.length;
  const numRel = [...qrels.values()].filter((g) => g >= 0 && g >= m.rel).length;
  const isRel = (r: number) => r >= 0 && r >= m.rel;
  const top = rels.slice(0, cut);
  switch (m.family) {
    case 'P':
      return top.filter(isRel).length / cut;
    case 'R':
      return numRel === 0 ? 0 : top.filter(isRel).length / numRel;
    case 'Success':
      return top.some(isRel) ? 1 : 0;
    case 'RR': {
      const at = top.findIndex(isRel);
      return at < 0 ? 0 : 1 / (at + 1);
    }
    case 'AP': {
      let found = 0;
      const sum = top.reduce((acc, r, i) => (isRel(r) ? acc + ++found / (i + 1) : acc), 0);
      return numRel === 0 ? 0 : sum / numRel;
    }
    case 'nDCG': {
      const gain = (g: number) => (g < 0 ? 0 : (m.gains?.get(g) ?? g));
      const dcg = top.reduce((acc, r, i) => acc + (gain(r) > 0 ? gain(r) / log2(i + 2) : 0), 0);
      const ideal = [...qrels.values()].map(gain).sort((a, b) => b - a);
      const idcg = ideal
        .slice(0, m.cutoff ?? ideal.length)
        .reduce((acc, g, i) => acc + (g > 0 ? g / log2(i + 2) : 0), 0);
      return idcg > 0 ? dcg / idcg : 0;
    }
  }
}

const NAMES = [
  'nDCG@5',
  'nDCG',
  'nDCG(gains={1:0,2:5})@10',
  'nDCG(judged_only=True)@10',
  'P@1',
  'P@10',
  'P(rel=2)@5',
  'R@3',
  'R(rel=2)@20',
  'AP',
  'AP@5',
  'AP(rel=2)',
  'AP(judged_only=True)',
  'RR',
  'RR(rel=2)@5',
  'Success@3',
  'Judged@5',
  'Judged',
];

describe('measures against an independent implementation', () => {
  it('agree on 300 random queries with ties, unjudged and negatively graded documents', () => {
    const random = seededRandom(40);
    for (let q = 0; q < 300; q++) {
      const run: Record<string, number> = {};
      const retrieved = Math.floor(random() * 30);
      // Integer-like ids (the ordering trap) and few distinct scores (many ties).
      for (let i = 0; i < retrieved; i++)
        run[String(Math.floor(random() * 60))] = Math.floor(random() * 6);
      const qrels = new Map<string, number>();
      const judgedCount = Math.floor(random() * 25);
      for (let i = 0; i < judgedCount; i++)
        qrels.set(String(Math.floor(random() * 60)), Math.floor(random() * 5) - 1);
      for (const name of NAMES) {
        const got = computeMeasure(parseMeasure(name), new RankedQuery(run), qrels);
        expect(got, `${name} on query ${q}`).toBeCloseTo(reference(name, run, qrels), 12);
      }
    }
  });
});
