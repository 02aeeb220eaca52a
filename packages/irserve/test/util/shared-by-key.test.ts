import { describe, expect, it } from 'vitest';
import { SharedByKey } from '../../src/util/shared-by-key.js';

describe('SharedByKey', () => {
  it('loads a key once for concurrent holders and disposes of it after the last release', async () => {
    const disposed: string[] = [];
    let loads = 0;
    const pool = new SharedByKey<string>(async (value) => {
      disposed.push(value);
    });
    const load = async () => `model-${++loads}`;
    const [a, b] = await Promise.all([pool.acquire('m', load), pool.acquire('m', load)]);
    expect(a.value).toBe('model-1');
    expect(b.value).toBe('model-1');
    expect(loads).toBe(1);
    await a.release();
    await a.release(); // a second release does nothing
    expect(disposed).toEqual([]);
    expect(pool.size).toBe(1);
    await b.release();
    expect(disposed).toEqual(['model-1']);
    expect(pool.size).toBe(0);
    const again = await pool.acquire('m', load);
    expect(again.value).toBe('model-2');
    await again.release();
  });

  it('forgets a failed load (every waiter sees the error; the next acquire tries again)', async () => {
    const pool = new SharedByKey<string>(async () => undefined);
    let fail = true;
    const load = async () => {
      if (fail) throw new Error('no such model');
      return 'ok';
    };
    const results = await Promise.allSettled([pool.acquire('m', load), pool.acquire('m', load)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(pool.size).toBe(0);
    fail = false;
    const lease = await pool.acquire('m', load);
    expect(lease.value).toBe('ok');
    await lease.release();
  });

  it('keeps keys apart, and a load that throws synchronously is a rejection', async () => {
    const pool = new SharedByKey<number>(async () => undefined);
    const one = await pool.acquire('a', async () => 1);
    const two = await pool.acquire('b', async () => 2);
    expect([one.value, two.value]).toEqual([1, 2]);
    await expect(
      pool.acquire('c', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await one.release();
    await two.release();
    expect(pool.size).toBe(0);
  });
});
