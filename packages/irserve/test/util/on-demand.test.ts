import { describe, expect, it } from 'vitest';
import { onDemand } from '../../src/util/on-demand.js';

describe('onDemand', () => {
  it('loads nothing until asked, once for concurrent callers, then keeps the value at hand', async () => {
    let loads = 0;
    const value = onDemand(async () => {
      loads++;
      return { n: 42 };
    });
    expect(loads).toBe(0);
    expect(value.current).toBeUndefined();
    const [a, b] = await Promise.all([value.get(), value.get()]);
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect(value.current).toBe(a);
    expect(await value.get()).toBe(a);
    expect(loads).toBe(1);
  });

  it('a failed load stays failed and leaves no value', async () => {
    let loads = 0;
    const value = onDemand(async () => {
      loads++;
      throw new Error('no module');
    });
    await expect(value.get()).rejects.toThrow('no module');
    await expect(value.get()).rejects.toThrow('no module');
    expect(loads).toBe(1);
    expect(value.current).toBeUndefined();
  });
});
