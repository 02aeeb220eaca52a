import { describe, expect, it } from 'vitest';
import { cacheKeyFunction, hashKey } from '../../src/processors/cache-key.js';

describe('cache keys', () => {
  it('search keys cover query, limit, subset and every other field, per service', () => {
    const key = cacheKeyFunction('search', 'bm25', []);
    const base = { service: 'bm25', query: 'q', limit: 10 };
    expect(key(base)).toBe(key({ ...base }));
    expect(key(base)).not.toBe(key({ ...base, limit: 11 }));
    expect(key(base)).not.toBe(key({ ...base, subset: 'a' }));
    expect(key(base)).not.toBe(key({ ...base, lang: 'de' }));
    expect(key(base)).not.toBe(key({ ...base, instruction: 'Represent this query' }));
    expect(key({ ...base, boost: { a: 3 } })).not.toBe(key({ ...base, boost: { a: 4 } }));
    expect(cacheKeyFunction('search', 'other', [])(base)).not.toBe(key(base));
  });

  it('normalises field order and undefined values, at every level', () => {
    const key = cacheKeyFunction('search', 'bm25', []);
    const a = { query: 'q', limit: 10, x: { b: 1, a: [{ d: 2, c: 1 }] }, y: 1 };
    const b = { y: 1, x: { a: [{ c: 1, d: 2 }], b: 1 }, limit: 10, query: 'q', z: undefined };
    expect(key(a)).toBe(key(b));
    expect(key({ query: 'q', limit: 10, z: undefined })).toBe(key({ query: 'q', limit: 10 }));
  });

  it('leaves out the fields listed in cache_key_exclude, only those', () => {
    const key = cacheKeyFunction('search', 'bm25', ['trace_id']);
    const base = { query: 'q', limit: 10 };
    expect(key({ ...base, trace_id: 'a' })).toBe(key({ ...base, trace_id: 'b' }));
    expect(key({ ...base, trace_id: 'a' })).toBe(key(base));
    expect(key({ ...base, lang: 'de' })).not.toBe(key(base));
  });

  it('score, fuse and decompose keys cover their extra fields', () => {
    const score = cacheKeyFunction('score', 's', []);
    const r = { query: 'q', passages: ['a'] };
    expect(score(r)).not.toBe(score({ ...r, prompt: 'p' }));
    const fuse = cacheKeyFunction('fuse', 'f', []);
    const f = { query: 'q', rankings: [{ a: 1 }] };
    expect(fuse(f)).not.toBe(fuse({ ...f, k: 60 }));
    const decompose = cacheKeyFunction('decompose_query', 'd', []);
    expect(decompose({ query: 'q' })).not.toBe(decompose({ query: 'q', style: 'x' }));
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

  it('writes the usual search key directly, exactly as the generic way does', () => {
    const key = cacheKeyFunction('search', 'bm25', []);
    const requests = [
      { query: 'boundary layer', limit: 10 },
      { query: 'q', limit: 10, subset: 'en' },
      { query: 'q', limit: 10, subset: undefined },
      { query: '', limit: 1e21 },
      { query: 'quote " and \\ and \u2028 and \ud800', limit: 3 },
      { query: 'x'.repeat(180), limit: 10 },
      { query: 'x'.repeat(500), limit: 10 },
      { query: 'q', limit: Number.NaN },
      { query: 'q', limit: 10, subset: 7 },
      { query: 'q', limit: 10, subset: null },
    ];
    for (const request of requests) {
      const generic = `bm25:${hashKey([request.query, request.limit, request.subset ?? null])}`;
      expect(key(request as never), JSON.stringify(request)).toBe(generic);
    }
  });
});
