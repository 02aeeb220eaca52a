import { describe, expect, it } from 'vitest';
import type { Engine, ScoreRequest, Scores, SearchRequest } from '../../src/engines/contract.js';
import { buildService, type ServiceSpec } from '../../src/processors/build-service.js';
import type { CacheStore } from '../../src/cache/cache-store.js';
import type { CacheEntry } from '../../src/cache/cached.js';
import { MemoryStore } from '../../src/cache/memory-store.js';
import type { Role } from '../../src/engines/contract.js';
import { quietLogger } from '../helpers/logger.js';

class Recorder implements Engine {
  calls: SearchRequest[][] = [];
  delayMs = 0;
  async searchBatch(requests: SearchRequest[]) {
    this.calls.push(requests);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    return requests.map((r) => ({ [`doc-${r.query}`]: r.limit }));
  }
  async scoreBatch(requests: ScoreRequest[]) {
    return requests.map((r) => r.passages.map((p) => (typeof p === 'string' ? p.length : 0)));
  }
}

function spec<R extends Role>(
  role: R,
  engine: Engine,
  overrides: Partial<ServiceSpec<R>> = {},
): ServiceSpec<R> {
  return {
    name: 'svc',
    role,
    engine,
    engineName: 'Recorder',
    inputKind: 'text',
    processor: 'batch',
    batchSize: 32,
    maxWaitMs: 10,
    maxQueue: 100,
    maxConcurrentBatches: 1,
    cache: undefined,
    logger: quietLogger(),
    ...overrides,
  };
}

describe('buildService', () => {
  it('batches concurrent requests into one engine call and passes extra fields through', async () => {
    const engine = new Recorder();
    const service = buildService(spec('search', engine));
    const results = await Promise.all(
      ['a', 'b', 'c'].map((q) => service.call({ query: q, limit: 5, instruction: 'x' })),
    );
    expect(results.map((r) => r.value)).toEqual([{ 'doc-a': 5 }, { 'doc-b': 5 }, { 'doc-c': 5 }]);
    expect(engine.calls).toHaveLength(1);
    expect(engine.calls[0]![0]).toMatchObject({ query: 'a', limit: 5, instruction: 'x' });
    await service.close();
  });

  it('computes identical requests of one batch once', async () => {
    const engine = new Recorder();
    const service = buildService(spec('search', engine));
    const results = await Promise.all(
      [1, 2, 3].map(() => service.call({ query: 'same', limit: 3 })),
    );
    expect(results.every((r) => r.value['doc-same'] === 3)).toBe(true);
    expect(engine.calls[0]).toHaveLength(1);
    await service.close();
  });

  it('keeps the keys its result check read (checkedKeys), for a cache hit too', async () => {
    const engine = new Recorder();
    const service = buildService(
      spec('search', engine, { cache: new MemoryStore({ capacity: 10, ttlSeconds: 60 }) }),
    );
    const first = await service.call({ query: 'q', limit: 2 });
    expect(service.checkedKeys?.(first.value)).toEqual(['doc-q']);
    const hit = await service.call({ query: 'q', limit: 2 });
    expect(hit.cached).toBe(true);
    expect(service.checkedKeys?.(hit.value)).toEqual(['doc-q']);
    // A map it did not return (or a check that failed) has none.
    expect(service.checkedKeys?.({ 'doc-q': 2 })).toBeUndefined();
    // Services whose results are not checked, or are not score maps, keep none.
    const trusted = buildService(spec('search', engine, { trustedResults: true }));
    expect('checkedKeys' in trusted).toBe(false);
    expect('checkedKeys' in buildService(spec('score', engine))).toBe(false);
    await service.close();
    await trusted.close();
  });

  it("asks an unchecked engine for the keys it kept (a fusion rule's resultKeys)", async () => {
    const kept = new WeakMap<object, readonly string[]>();
    const rule: Engine = {
      async fuseBatch(requests) {
        return requests.map(() => {
          const scores = { b: 2, a: 1 };
          kept.set(scores, ['b', 'a']);
          return scores;
        });
      },
      resultKeys: (scores) => kept.get(scores),
    };
    const trusted = buildService(
      spec('fuse', rule, { processor: 'minimal', trustedResults: true }),
    );
    const result = await trusted.call({ query: 'q', rankings: [] });
    expect(trusted.checkedKeys?.(result.value)).toEqual(['b', 'a']);
    // Checked services read the keys themselves and never ask the engine.
    const checked = buildService(spec('fuse', rule, { processor: 'minimal' }));
    const again = await checked.call({ query: 'q', rankings: [] });
    expect(checked.checkedKeys?.(again.value)).toEqual(['b', 'a']);
    await trusted.close();
    await checked.close();
  });

  it('serves a repeated request from the cache with the original timestamp', async () => {
    const engine = new Recorder();
    const service = buildService(
      spec('search', engine, { cache: new MemoryStore({ capacity: 10, ttlSeconds: 60 }) }),
    );
    const first = await service.call({ query: 'q', limit: 2 });
    const second = await service.call({ query: 'q', limit: 2 });
    const other = await service.call({ query: 'q', limit: 3 });
    expect(first.cached).toBe(false);
    expect(second).toEqual({ ...first, cached: true });
    expect(other.cached).toBe(false);
    expect(engine.calls).toHaveLength(2);
    await service.close();
  });

  it('answers a cache hit at once through cachedNow, and nothing else', async () => {
    const engine = new Recorder();
    const service = buildService(
      spec('search', engine, { cache: new MemoryStore({ capacity: 10, ttlSeconds: 0.05 }) }),
    );
    expect(service.cachedNow?.({ query: 'q', limit: 2 })).toBeUndefined();
    const first = await service.call({ query: 'q', limit: 2 });
    expect(service.cachedNow?.({ query: 'q', limit: 2 })).toEqual({ ...first, cached: true });
    expect(service.cachedNow?.({ query: 'q', limit: 3 })).toBeUndefined();
    expect(engine.calls).toHaveLength(1);
    // Expired entries are not hits.
    await new Promise((r) => setTimeout(r, 80));
    expect(service.cachedNow?.({ query: 'q', limit: 2 })).toBeUndefined();
    // A store that cannot answer at once (Redis), no cache, or a minimal processor: no hits here.
    const inner = new MemoryStore<CacheEntry<Scores>>({ capacity: 10, ttlSeconds: 60 });
    const asRemote: CacheStore<CacheEntry<Scores>> = {
      get: (key) => inner.get(key),
      put: (key, value, ttl) => inner.put(key, value, ttl),
      remove: (key) => inner.remove(key),
      clear: () => inner.clear(),
      length: () => inner.length(),
      close: () => inner.close(),
    };
    const overRemote = buildService(spec('search', engine, { cache: asRemote }));
    await overRemote.call({ query: 'q', limit: 2 });
    expect(overRemote.cachedNow?.({ query: 'q', limit: 2 })).toBeUndefined();
    expect('cachedNow' in buildService(spec('search', engine))).toBe(false);
    await Promise.all([service.close(), overRemote.close()]);
  });

  it('coalesces concurrent identical misses (single flight)', async () => {
    const engine = new Recorder();
    engine.delayMs = 20;
    const service = buildService(
      spec('search', engine, {
        processor: 'single',
        cache: new MemoryStore({ capacity: 10, ttlSeconds: 60 }),
      }),
    );
    await Promise.all([1, 2, 3, 4].map(() => service.call({ query: 'q', limit: 2 })));
    expect(engine.calls).toHaveLength(1);
    await service.close();
  });

  it('keys the score cache on the passages', async () => {
    const engine = new Recorder();
    const service = buildService(
      spec('score', engine, { cache: new MemoryStore({ capacity: 10, ttlSeconds: 60 }) }),
    );
    const a = await service.call({ query: 'q', passages: ['aa', 'b'] });
    const b = await service.call({ query: 'q', passages: ['aaaa'] });
    expect(a.value).toEqual([2, 1]);
    expect(b).toMatchObject({ value: [4], cached: false });
    await service.close();
  });

  it('never caches errors', async () => {
    let fail = true;
    const engine: Engine = {
      async searchBatch(requests) {
        if (fail) throw new Error('temporary');
        return requests.map(() => ({ d: 1 }));
      },
    };
    const service = buildService(
      spec('search', engine, {
        processor: 'single',
        cache: new MemoryStore({ capacity: 10, ttlSeconds: 60 }),
      }),
    );
    await expect(service.call({ query: 'q', limit: 1 })).rejects.toMatchObject({
      code: 'ERR_ENGINE',
      message: 'service "svc" failed: temporary',
    });
    fail = false;
    await expect(service.call({ query: 'q', limit: 1 })).resolves.toMatchObject({
      value: { d: 1 },
      cached: false,
    });
  });

  it('keeps the code of an IrserveError thrown by another copy of irserve (an extra or plugin)', async () => {
    class IrserveError extends Error {
      readonly code = 'ERR_UPSTREAM_TIMEOUT';
      constructor(message: string) {
        super(message);
        this.name = 'IrserveError';
      }
    }
    const engine: Engine = {
      async searchBatch() {
        throw new IrserveError('embeddings API timed out');
      },
    };
    const service = buildService(spec('search', engine, { processor: 'single' }));
    const error: unknown = await service.call({ query: 'q', limit: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_UPSTREAM_TIMEOUT', httpStatus: 504 });
    await service.close();
  });

  it.each([
    ['a non-array', async () => ({})],
    ['too few results', async () => []],
    ['a non-numeric score', async () => [{ d: 'high' }]],
    ['an array instead of a map', async () => [[1]]],
  ])('fails the batch with ERR_ENGINE when the engine returns %s', async (_label, searchBatch) => {
    const service = buildService(
      spec('search', { searchBatch } as unknown as Engine, { processor: 'single' }),
    );
    await expect(service.call({ query: 'q', limit: 1 })).rejects.toMatchObject({
      code: 'ERR_ENGINE',
    });
  });

  it('fails a score batch whose lists have the wrong length', async () => {
    const engine = { scoreBatch: async () => [[1]] } as unknown as Engine;
    const service = buildService(spec('score', engine, { processor: 'single' }));
    await expect(service.call({ query: 'q', passages: ['a', 'b'] })).rejects.toThrow(
      'returned 1 scores for 2 passages',
    );
  });

  it('throws a TypeError naming the method when the engine cannot serve the role', () => {
    class OnlySearch {
      async searchBatch() {
        return [];
      }
    }
    expect(() => buildService(spec('score', new OnlySearch() as Engine))).toThrow(
      /OnlySearch cannot serve role "score".*scoreBatch\(\)/,
    );
  });
});
