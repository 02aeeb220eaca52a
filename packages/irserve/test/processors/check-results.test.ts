import { describe, expect, it } from 'vitest';
import { checkResults } from '../../src/processors/check-results.js';
import { ItemFailure } from '../../src/processors/item-failure.js';

describe('checkResults: the keys of the score maps it read', () => {
  it('records each valid map with its Object.keys, and no map that fails', () => {
    const keysOf = new WeakMap<object, readonly string[]>();
    const good = Object.assign(Object.create(null) as Record<string, number>, { b: 2, 7: 1, a: 3 });
    const bad = { x: 'high' };
    const requests = [
      { query: 'q', limit: 3 },
      { query: 'r', limit: 3 },
    ];
    const results = checkResults('search', 's', requests, [good, bad], keysOf);
    expect(results[0]).toBe(good);
    expect(results[1]).toBeInstanceOf(ItemFailure);
    expect(keysOf.get(good)).toEqual(['7', 'b', 'a']);
    expect(keysOf.has(bad)).toBe(false);
    // Fuse results too; other roles record nothing.
    const fused = { d: 1 };
    checkResults('fuse', 's', [{ query: 'q', rankings: [] }], [fused], keysOf);
    expect(keysOf.get(fused)).toEqual(['d']);
    const scores = [1, 2];
    checkResults('score', 's', [{ query: 'q', passages: ['a', 'b'] }], [scores], keysOf);
    expect(keysOf.has(scores)).toBe(false);
  });
});
