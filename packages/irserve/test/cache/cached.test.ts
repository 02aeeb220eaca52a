import { describe, expect, it } from 'vitest';
import { IrserveError } from '../../src/errors.js';
import { withCache } from '../../src/cache/cached.js';
import { MemoryStore } from '../../src/cache/memory-store.js';

describe('withCache single flight', () => {
  it('a follower computes for itself when the leading caller left', async () => {
    let calls = 0;
    const cached = withCache<string, number>(
      async (_request, options) => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        if (options?.signal?.aborted) throw new IrserveError('ERR_CLIENT_CLOSED', 'left');
        return { value: 42, cached: false, timestamp: 1 };
      },
      { store: new MemoryStore({ capacity: 10, ttlSeconds: -1 }), key: (r) => r },
    );
    const leaving = new AbortController();
    const leader = cached.call('q', { signal: leaving.signal });
    const follower = cached.call('q');
    leaving.abort();
    await expect(leader).rejects.toMatchObject({ code: 'ERR_CLIENT_CLOSED' });
    await expect(follower).resolves.toMatchObject({ value: 42 });
    expect(calls).toBe(2);
  });

  it('an engine failure is shared, not retried by followers', async () => {
    let calls = 0;
    const cached = withCache<string, number>(
      async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 5));
        throw new IrserveError('ERR_ENGINE', 'boom');
      },
      { store: new MemoryStore({ capacity: 10, ttlSeconds: -1 }), key: (r) => r },
    );
    const settled = await Promise.allSettled([cached.call('q'), cached.call('q')]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
  });
});
