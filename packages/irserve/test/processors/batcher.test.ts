import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/processors/batcher.js';
import { IrserveError } from '../../src/errors.js';
import { ItemFailure } from '../../src/processors/item-failure.js';
import type { Abortable } from '../../src/util/abort-scope.js';

function recordingBatcher(
  options: Partial<ConstructorParameters<typeof Batcher<number, number>>[0]> = {},
) {
  const batches: number[][] = [];
  const batcher = new Batcher<number, number>({
    maxSize: 4,
    maxWaitMs: 20,
    maxQueue: 100,
    maxConcurrent: 1,
    run: async (items) => {
      batches.push([...items]);
      return items.map((item) => item * 10);
    },
    ...options,
  });
  return { batcher, batches };
}

describe('Batcher', () => {
  it('gathers concurrent items into one batch and resolves each with its own result', async () => {
    const { batcher, batches } = recordingBatcher();
    const results = await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('dispatches as soon as maxSize items wait, without waiting maxWaitMs', async () => {
    const { batcher, batches } = recordingBatcher({ maxWaitMs: 10_000 });
    const started = performance.now();
    await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((n) => batcher.submit(n)));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(batches).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
  });

  it('waits about maxWaitMs for a lone item when not adaptive (RoutIR behaviour)', async () => {
    const { batcher } = recordingBatcher({ maxWaitMs: 50, adaptive: false });
    const started = performance.now();
    await batcher.submit(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('rejects every item of a failing batch when isolation is off, and keeps serving', async () => {
    let fail = true;
    const batcher = new Batcher<number, number>({
      maxSize: 8,
      maxWaitMs: 5,
      maxQueue: 10,
      maxConcurrent: 1,
      isolateFailures: false,
      run: async (items) => {
        if (fail) throw new Error('boom');
        return items;
      },
    });
    await expect(Promise.all([batcher.submit(1), batcher.submit(2)])).rejects.toThrow('boom');
    fail = false;
    await expect(batcher.submit(3)).resolves.toBe(3);
  });

  it('rejects only the items whose results are missing', async () => {
    const batcher = new Batcher<number, number>({
      maxSize: 8,
      maxWaitMs: 5,
      maxQueue: 10,
      maxConcurrent: 1,
      run: async (items) => items.slice(0, 1),
    });
    const [first, second] = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(first).toEqual({ status: 'fulfilled', value: 1 });
    expect(second.status).toBe('rejected');
    expect((second as PromiseRejectedResult).reason).toBeInstanceOf(IrserveError);
  });

  it('fails fast with ERR_OVERLOADED when the queue is full', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new Batcher<number, number>({
      maxSize: 1,
      maxWaitMs: 0,
      maxQueue: 2,
      maxConcurrent: 1,
      run: async (items) => {
        await gate;
        return items;
      },
    });
    const running = batcher.submit(1); // dispatched, blocks on the gate
    await new Promise((r) => setTimeout(r, 5));
    const queued = [batcher.submit(2), batcher.submit(3)];
    await expect(batcher.submit(4)).rejects.toMatchObject({
      code: 'ERR_OVERLOADED',
      retryAfter: 1,
    });
    release();
    await expect(Promise.all([running, ...queued])).resolves.toEqual([1, 2, 3]);
  });

  it('removes an aborted item before dispatch', async () => {
    const { batcher, batches } = recordingBatcher({ maxWaitMs: 30, adaptive: false });
    const controller = new AbortController();
    const aborted = batcher.submit(1, controller.signal);
    const kept = batcher.submit(2);
    controller.abort(new Error('client went away'));
    await expect(aborted).rejects.toThrow('client went away');
    await expect(kept).resolves.toBe(20);
    expect(batches).toEqual([[2]]);
  });

  it('runs at most maxConcurrent batches at once', async () => {
    let running = 0;
    let peak = 0;
    const batcher = new Batcher<number, number>({
      maxSize: 1,
      maxWaitMs: 0,
      maxQueue: 100,
      maxConcurrent: 2,
      run: async (items) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
        return items;
      },
    });
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n)));
    expect(peak).toBe(2);
  });

  it('close() drains waiting items and then refuses new ones', async () => {
    const { batcher } = recordingBatcher({ maxWaitMs: 10_000 });
    const pending = batcher.submit(7);
    await batcher.close();
    await expect(pending).resolves.toBe(70);
    await expect(batcher.submit(8)).rejects.toMatchObject({ code: 'ERR_SHUTTING_DOWN' });
  });

  it('rejects invalid options when built', () => {
    expect(
      () =>
        new Batcher({
          maxSize: 0,
          maxWaitMs: 1,
          maxQueue: 1,
          maxConcurrent: 1,
          run: async () => [],
        }),
    ).toThrow(RangeError);
  });
});

describe('Batcher: adaptive dispatch', () => {
  it('dispatches a lone item on an idle batcher at once, not after maxWaitMs', async () => {
    const { batcher } = recordingBatcher({ maxWaitMs: 5_000 });
    const started = performance.now();
    await expect(batcher.submit(1)).resolves.toBe(10);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('still gathers the items submitted in one turn into one batch', async () => {
    const { batcher, batches } = recordingBatcher({ maxWaitMs: 5_000 });
    await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('batches what queued while a batch was in flight, then goes at once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>({
      maxSize: 8,
      maxWaitMs: 5_000,
      maxQueue: 100,
      maxConcurrent: 1,
      run: async (items) => {
        batches.push([...items]);
        if (batches.length === 1) await gate;
        return items;
      },
    });
    const first = batcher.submit(1);
    await new Promise((r) => setTimeout(r, 5));
    const later = [2, 3, 4].map((n) => batcher.submit(n));
    await new Promise((r) => setTimeout(r, 5));
    release();
    const started = performance.now();
    await Promise.all([first, ...later]);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });
});

describe('Batcher: isolation', () => {
  it('retries a thrown batch one item at a time so only the bad item fails', async () => {
    const calls: number[][] = [];
    const batcher = new Batcher<number, number>({
      maxSize: 8,
      maxWaitMs: 5,
      maxQueue: 10,
      maxConcurrent: 1,
      run: async (items) => {
        calls.push([...items]);
        if (items.includes(2)) throw new IrserveError('ERR_BAD_REQUEST', 'item 2 is bad');
        return items.map((n) => n * 10);
      },
    });
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batcher.submit(n)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_BAD_REQUEST' });
    expect(calls).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('fails one item alone when its result is an ItemFailure', async () => {
    const batcher = new Batcher<number, number>({
      maxSize: 8,
      maxWaitMs: 5,
      maxQueue: 10,
      maxConcurrent: 1,
      run: async (items) =>
        items.map((n) => (n === 2 ? new ItemFailure(new Error('malformed')) : n)),
    });
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batcher.submit(n)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});

describe('Batcher: deadlines and abandoned work', () => {
  const hangingBatcher = (calls: { signal: Abortable }[], maxConcurrent = 1) =>
    new Batcher<number, number>({
      maxSize: 4,
      maxWaitMs: 0,
      maxQueue: 100,
      maxConcurrent,
      run: (items, context) => {
        calls.push(context);
        // Hangs for the first call only, and ignores its signal (the worst engine).
        return calls.length === 1 ? new Promise(() => undefined) : Promise.resolve(items);
      },
    });

  it('rejects a running item at its deadline and tells the engine through the signal', async () => {
    const calls: { signal: Abortable }[] = [];
    const batcher = hangingBatcher(calls);
    const controller = new AbortController();
    const pending = batcher.submit(1, controller.signal);
    await new Promise((r) => setTimeout(r, 5));
    controller.abort(new IrserveError('ERR_TIMEOUT', 'deadline'));
    await expect(pending).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
    expect(calls[0]!.signal.aborted).toBe(true);
  });

  it('frees the slot of an abandoned batch, so a hung engine does not block the service', async () => {
    const calls: { signal: Abortable }[] = [];
    const batcher = hangingBatcher(calls);
    const controller = new AbortController();
    const hung = batcher.submit(1, controller.signal);
    await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('gone'));
    await expect(hung).rejects.toThrow('gone');
    await expect(batcher.submit(2)).resolves.toBe(2);
  });

  it('drops queued work past its deadline before it reaches the engine', async () => {
    const calls: { signal: Abortable }[] = [];
    const batcher = hangingBatcher(calls);
    void batcher.submit(1).catch(() => undefined); // occupies the only slot, forever
    await new Promise((r) => setTimeout(r, 5));
    const signal = AbortSignal.timeout(20);
    await expect(batcher.submit(2, signal)).rejects.toBeDefined();
    expect(batcher.pending).toBe(0);
    expect(calls).toHaveLength(1);
  });
});
