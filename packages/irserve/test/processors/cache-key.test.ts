import { describe, expect, it } from 'vitest';
import { cacheKeyFunction, hashKey } from '../../src/processors/cache-key.js';

describe('cache keys', () => {
  it('search keys cover query, limit, subset and the extra fields, per service', () => {
    const key = cacheKeyFunction('search', 'bm25', ['lang']);
    const base = { service: 'bm25', query: 'q', limit: 10 };
    expect(key(base)).toBe(key({ ...base }));
    expect(key(base)).not.toBe(key({ ...base, limit: 11 }));
    expect(key(base)).not.toBe(key({ ...base, subset: 'a' }));
    expect(key(base)).not.toBe(key({ ...base, lang: 'de' }));
    expect(cacheKeyFunction('search', 'other', ['lang'])(base)).not.toBe(key(base));
  });

  it('score keys depend on the passages, bytes by content', () => {
    const key = cacheKeyFunction('score', 's', []);
    const bytes = (...b: number[]) => [new Uint8Array(b)];
    const r = (passages: (string | Uint8Array[])[]) => ({ service: 's', query: 'q', passages });
    expect(key(r([bytes(1, 2)]))).toBe(key(r([bytes(1, 2)])));
    expect(key(r([bytes(1, 2)]))).not.toBe(key(r([bytes(1, 3)])));
    expect(key(r(['AQI=']))).not.toBe(key(r(['a'])));
    // Bytes are keyed as base64, compactly (not as objects with one key per byte).
    expect(key(r([[new Uint8Array(1000)]]))).toHaveLength('s:'.length + 32);
    expect(hashKey(['q', [[new Uint8Array([1, 2])]]])).toBe('["q",[["AQI="]]]');
  });

  it('short keys are their JSON; long ones a fixed-size hash', () => {
    expect(hashKey(['q', 10])).toBe('["q",10]');
    const long = hashKey(['x'.repeat(500)]);
    expect(long).toHaveLength(32);
    expect(long).not.toBe(hashKey(['x'.repeat(501)]));
    expect(hashKey([new Uint8Array([255])])).toBe('["/w=="]');
  });
});
