import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheStore, CacheStoreOptions } from '../../src/cache/cache-store.js';

/**
 * The conformance suite every cache store runs (STYLE item 1). `make` builds a fresh, empty store.
 */
export function cacheStoreSuite(
  name: string,
  make: (options: CacheStoreOptions) => Promise<CacheStore<{ v: unknown }>>,
): void {
  describe(`${name} (cache store conformance)`, () => {
    let store: CacheStore<{ v: unknown }>;
    beforeEach(async () => {
      store = await make({ capacity: 3, ttlSeconds: -1 });
    });
    afterEach(async () => {
      await store.close();
    });

    it('returns undefined on a miss and the value on a hit', async () => {
      expect(await store.get('a')).toBeUndefined();
      await store.put('a', { v: [1, 2.5, 'x'] });
      expect(await store.get('a')).toEqual({ v: [1, 2.5, 'x'] });
    });

    it('round-trips floats exactly', async () => {
      const value = { v: [0.1 + 0.2, 1e-300, -0, 123456789.12345679] };
      await store.put('f', value);
      expect(await store.get('f')).toEqual(value);
    });

    it('removes and clears', async () => {
      await store.put('a', { v: 1 });
      await store.put('b', { v: 2 });
      await store.remove('a');
      expect(await store.get('a')).toBeUndefined();
      expect(await store.length()).toBe(1);
      await store.clear();
      expect(await store.length()).toBe(0);
    });

    it('evicts beyond capacity (approximately, for external stores)', async () => {
      for (const key of ['a', 'b', 'c', 'd', 'e']) await store.put(key, { v: key });
      expect(await store.length()).toBeLessThanOrEqual(4);
      expect(await store.get('e')).toEqual({ v: 'e' });
    });

    it('expires entries after their ttl', async () => {
      await store.put('t', { v: 1 }, 0.05);
      expect(await store.get('t')).toEqual({ v: 1 });
      await new Promise((r) => setTimeout(r, 120));
      expect(await store.get('t')).toBeUndefined();
    });

    it('keeps entries forever with ttl -1 and unlimited capacity', async () => {
      const unlimited = await make({ capacity: -1, ttlSeconds: -1 });
      try {
        for (let i = 0; i < 50; i++) await unlimited.put(`k${i}`, { v: i });
        expect(await unlimited.length()).toBe(50);
        expect(await unlimited.get('k0')).toEqual({ v: 0 });
      } finally {
        await unlimited.close();
      }
    });
  });
}
