import { describe, expect, it } from 'vitest';
import { LabelIndex, type Labels } from '../../src/metrics/label-index.js';

/** An index of counters over `names`, and the labels each series was made with. */
function counters(names: readonly string[]) {
  const made: Labels[] = [];
  const index = new LabelIndex(names, (labels) => {
    made.push(labels);
    return { labels, n: 0 };
  });
  return { index, made };
}

describe('LabelIndex', () => {
  it('finds one series per label set, made once, in the order first seen', () => {
    const { index, made } = counters(['route', 'status']);
    const events = [
      { route: '/search', status: '200' },
      { route: '/search', status: '400' },
      { route: '/pipeline', status: '200' },
      { route: '/search', status: '200' },
    ];
    for (const labels of events) index.get({ ...labels }).n++;
    expect(index.values().map(({ labels, n }) => [labels, n])).toEqual([
      [{ route: '/search', status: '200' }, 2],
      [{ route: '/search', status: '400' }, 1],
      [{ route: '/pipeline', status: '200' }, 1],
    ]);
    expect(made).toHaveLength(3);
  });

  it('counts a value by its String(), as the exposition writes it', () => {
    const { index } = counters(['status', 'ok']);
    index.get({ status: 200, ok: true }).n++;
    index.get({ status: '200', ok: 'true' }).n++;
    // A missing label is "undefined", as it was with a joined key.
    index.get({ status: '200' }).n++;
    index.get({ status: '200', ok: undefined }).n++;
    expect(index.values().map(({ n }) => n)).toEqual([2, 2]);
  });

  it('keeps label values apart that a joined key could confuse', () => {
    const { index } = counters(['a', 'b']);
    index.get({ a: 'x\u0000', b: '' }).n++;
    index.get({ a: 'x', b: '\u0000' }).n++;
    index.get({ a: '__proto__', b: 'constructor' }).n++;
    index.get({ a: 'x'.repeat(100_000), b: '' }).n++;
    expect(index.values()).toHaveLength(4);
  });

  it('holds one series when there are no label names', () => {
    const { index } = counters([]);
    index.get({}).n++;
    index.get({ any: 'thing' }).n++;
    expect(index.values().map(({ n }) => n)).toEqual([2]);
  });

  it('binds a label set: found once, made only when first used, and again after a clear', () => {
    const { index, made } = counters(['service']);
    const bound = index.bind({ service: 'bm25' });
    expect(made).toHaveLength(0);
    bound().n++;
    bound().n++;
    expect(made).toHaveLength(1);
    expect(index.values().map(({ n }) => n)).toEqual([2]);
    index.clear();
    expect(index.values()).toEqual([]);
    bound().n++;
    expect(made).toHaveLength(2);
    expect(index.values().map(({ n }) => n)).toEqual([1]);
    // The same series through get and through the binding.
    index.get({ service: 'bm25' }).n++;
    expect(bound().n).toBe(2);
  });
});
