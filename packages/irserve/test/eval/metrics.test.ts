import { describe, expect, it } from 'vitest';
import { averagePrecision, evaluate, ndcg, rankDocuments, recall } from '../../src/eval/metrics.js';
import { formatTrecRun, parseQrels, parseQueries } from '../../src/eval/files.js';

const judged = new Map([
  ['d1', 3],
  ['d2', 0],
  ['d3', 1],
  ['d4', 2],
  ['d9', -1],
]);
// Ranking: d2 (0), d1 (3), d5 (unjudged), d3 (1), d4 (2)
const ranking = ['d2', 'd1', 'd5', 'd3', 'd4'];

describe('metrics (trec_eval definitions)', () => {
  it('nDCG@k with graded gains and a log2 discount', () => {
    const dcg = 3 / Math.log2(3) + 1 / Math.log2(5) + 2 / Math.log2(6);
    const idcg = 3 / 1 + 2 / Math.log2(3) + 1 / Math.log2(4);
    expect(ndcg(ranking, judged, 10)).toBeCloseTo(dcg / idcg, 12);
    // Cut at 3: only d1 counts; the ideal is cut at 3 as well.
    expect(ndcg(ranking, judged, 3)).toBeCloseTo(3 / Math.log2(3) / idcg, 12);
    expect(ndcg(ranking, judged, 1)).toBe(0);
    expect(ndcg(['d1', 'd4', 'd3'], judged, 10)).toBeCloseTo(1, 12);
  });

  it('AP over relevant documents (relevance >= 1)', () => {
    // Relevant: d1 (rank 2), d3 (rank 4), d4 (rank 5): (1/2 + 2/4 + 3/5) / 3
    expect(averagePrecision(ranking, judged)).toBeCloseTo((0.5 + 0.5 + 0.6) / 3, 12);
    // d4 not retrieved: contributes 0.
    expect(averagePrecision(['d1', 'd3'], judged)).toBeCloseTo((1 + 1) / 3, 12);
  });

  it('recall at k', () => {
    expect(recall(ranking, judged, 2)).toBeCloseTo(1 / 3, 12);
    expect(recall(ranking, judged, 100)).toBe(1);
    expect(recall([], judged, 100)).toBe(0);
  });

  it('ranks by score, ties by id descending (trec_eval order)', () => {
    expect(rankDocuments({ a: 1, b: 2, c: 1, d: 0.5 })).toEqual(['b', 'c', 'a', 'd']);
  });

  it('averages over the qrels queries; a missing query scores 0', () => {
    const qrels = new Map([
      ['q1', new Map([['d1', 1]])],
      ['q2', new Map([['d2', 1]])],
    ]);
    const run = new Map<string, Record<string, number>>([
      ['q1', { d1: 2, d3: 1 }],
      ['q3', { d1: 1 }],
    ]);
    const result = evaluate(run, qrels);
    expect(result.queries).toBe(2);
    expect(result.mean).toEqual({ 'nDCG@10': 0.5, AP: 0.5, 'R@100': 0.5, 'R@1000': 0.5 });
    expect(result.perQuery.get('q2')).toEqual({ 'nDCG@10': 0, AP: 0, 'R@100': 0, 'R@1000': 0 });
  });
});

describe('evaluation files', () => {
  it('reads TREC and BEIR qrels', () => {
    const trec = parseQrels('1\t0\t184\t3\n1 0 29 0\n2\t0\t5\t1\n');
    expect(trec.get('1')).toEqual(
      new Map([
        ['184', 3],
        ['29', 0],
      ]),
    );
    const beir = parseQrels('query-id\tcorpus-id\tscore\nq1\td1\t1\r\n');
    expect(beir).toEqual(new Map([['q1', new Map([['d1', 1]])]]));
    expect(() => parseQrels('1 0 d x\n1 0 d y')).toThrow(/line 2/);
  });

  it('reads JSONL queries with id/_id and text/query', () => {
    expect(parseQueries('{"id": 1, "text": "a"}\n{"_id": "q2", "query": "b"}\n')).toEqual([
      { id: '1', text: 'a' },
      { id: 'q2', text: 'b' },
    ]);
    expect(() => parseQueries('{"id": 1}')).toThrow(/line 1/);
  });

  it('writes TREC run files in rank order', () => {
    const run = new Map([['q1', { d1: 0.5, d2: 1.5 }]]);
    expect(formatTrecRun(run, 'tag')).toBe('q1 Q0 d2 1 1.5 tag\nq1 Q0 d1 2 0.5 tag\n');
  });
});
