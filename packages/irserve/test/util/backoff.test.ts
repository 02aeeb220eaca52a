import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep } from '../../src/util/backoff.js';

describe('backoffDelay', () => {
  it('grows from the base with full jitter and stays under the cap', () => {
    expect(backoffDelay(0, () => 0)).toBe(50);
    expect(backoffDelay(0, () => 1)).toBe(100);
    expect(backoffDelay(3, () => 1)).toBe(800);
    expect(backoffDelay(30, () => 1)).toBe(2000);
  });
});

describe('sleep', () => {
  it('resolves after the time and leaves no listener on the signal', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects with the reason when the signal aborts first', async () => {
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    controller.abort(new Error('client left'));
    await expect(slept).rejects.toThrow('client left');
    await expect(sleep(1, controller.signal)).rejects.toThrow('client left');
  });

  it('sleeps without a signal', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });
});
