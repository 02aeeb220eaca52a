import { describe, expect, it } from 'vitest';
import { denseIntegerIds, scoresObject } from '../../src/engines/bm25/scores-object.js';
import { random } from '../helpers/random.js';

const docIds = (ids: readonly string[]) => ({ numDocs: ids.length, docId: (d: number) => ids[d]! });

function topDocs(docs: readonly number[]) {
  return { docs: [...docs], scores: docs.map((_, rank) => docs.length - rank + 0.5) };
}

/** The object built the plain way, key by key in rank order. */
function reference(ids: readonly string[], docs: readonly number[]) {
  const scores: Record<string, number> = {};
  docs.forEach((d, rank) => (scores[ids[d]!] = docs.length - rank + 0.5));
  return scores;
}

function expectSameObject(ids: readonly string[], docs: readonly number[]) {
  const lookup = docIds(ids);
  const built = scoresObject(lookup, topDocs(docs), denseIntegerIds(lookup));
  // Same entries in the same enumeration order (what JSON and the HTTP serializer see).
  expect(Object.entries(built)).toEqual(Object.entries(reference(ids, docs)));
}

describe('denseIntegerIds', () => {
  it('reads ids that are all small canonical integers', () => {
    expect(denseIntegerIds(docIds(['3', '1', '2', '0']))).toEqual(Int32Array.of(3, 1, 2, 0));
    expect(denseIntegerIds(docIds([]))).toEqual(new Int32Array(0));
  });

  it('keeps ids as strings when any is not a canonical integer', () => {
    for (const odd of ['02', '-1', '1e3', ' 1', '1.0', 'doc1', '', '١٢']) {
      expect(denseIntegerIds(docIds(['1', odd])), odd).toBeUndefined();
    }
  });

  it('keeps ids as strings when they are sparse (far above the document count)', () => {
    expect(denseIntegerIds(docIds(['1', '1027']))).toEqual(Int32Array.of(1, 1027));
    expect(denseIntegerIds(docIds(['1', '1028']))).toBeUndefined();
    expect(denseIntegerIds(docIds(['1', '198309074']))).toBeUndefined();
  });
});

describe('scoresObject', () => {
  it('builds the same object as adding the documents in rank order', () => {
    const rand = random(4);
    const ids = Array.from({ length: 3_000 }, (_, d) => String(d + 1));
    for (let trial = 0; trial < 50; trial++) {
      // Small ids only (one order), ids spread past 1,024 (ascending order), and all sizes.
      const span = [1_400, 3_000, 900][trial % 3]!;
      const k = [1, 10, 100, 1_000][trial % 4]!;
      const docs = new Set<number>();
      while (docs.size < Math.min(k, span)) docs.add(Math.floor(rand() * span));
      expectSameObject(ids, [...docs]);
    }
  });

  it('handles results with no small id, a single document, and none', () => {
    const ids = Array.from({ length: 3_000 }, (_, d) => String(d));
    expectSameObject(ids, [2_999, 1_024, 2_000, 1_500]);
    expectSameObject(ids, [5, 2_999]);
    expectSameObject(ids, [7]);
    expectSameObject(ids, []);
  });

  it('keeps string ids in rank order', () => {
    const ids = ['MED-10', 'doc2', 'a', '7', 'z'];
    const lookup = docIds(ids);
    expect(denseIntegerIds(lookup)).toBeUndefined();
    const built = scoresObject(lookup, topDocs([2, 0, 4, 3]));
    expect(Object.keys(built)).toEqual(['7', 'a', 'MED-10', 'z']);
    expect(built).toEqual(reference(ids, [2, 0, 4, 3]));
  });

  it('builds results longer than its sort keys can rank in rank order', () => {
    const ids = Array.from({ length: 17_000 }, (_, d) => String(d));
    const docs = Array.from({ length: 17_000 }, (_, i) => (i * 7_919) % 17_000);
    expectSameObject(ids, docs);
  });
});
