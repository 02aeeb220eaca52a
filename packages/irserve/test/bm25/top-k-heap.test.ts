import { describe, expect, it } from 'vitest';
import { TopKHeap } from '../../src/engines/bm25/top-k-heap.js';

describe('TopKHeap', () => {
  it('keeps the k best, best first, the lower document winning ties', () => {
    const heap = new TopKHeap(3);
    [5, 1, 9, 5, 7, 2].forEach((score, doc) => heap.offer(doc, score));
    const { docs, scores } = heap.drain();
    expect([...docs]).toEqual([2, 4, 0]);
    expect([...scores]).toEqual([9, 7, 5]);
    expect(heap.size).toBe(0);
    expect(heap.threshold).toBe(-Infinity);
  });

  it('is reused by reset for another k, smaller or larger than its arrays', () => {
    const heap = new TopKHeap(2);
    heap.offer(0, 1);
    heap.reset(4);
    expect(heap.size).toBe(0);
    [3, 8, 1, 6, 4].forEach((score, doc) => heap.offer(doc, score));
    expect([...heap.drain().docs]).toEqual([1, 3, 4, 0]);
    heap.reset(1);
    [3, 8, 1].forEach((score, doc) => heap.offer(doc, score));
    expect(heap.full).toBe(true);
    expect([...heap.drain().scores]).toEqual([8]);
  });
});
