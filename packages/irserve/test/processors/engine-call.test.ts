import { describe, expect, it } from 'vitest';
import type { BatchOptions, SearchRequest } from '../../src/engines/contract.js';
import { engineBatchCall } from '../../src/processors/engine-call.js';
import { AbortScope } from '../../src/util/abort-scope.js';
import { countAbortControllers } from '../helpers/count-abort-controllers.js';

const request: SearchRequest = { query: 'q', limit: 1 };

describe('engineBatchCall: the signal an engine gets', () => {
  it('makes no AbortSignal for an engine that never reads it', async () => {
    const engine = { searchBatch: async (requests: SearchRequest[]) => requests.map(() => ({})) };
    const call = engineBatchCall(engine, 'search', 's');
    const made = await countAbortControllers(() => call([request], { signal: new AbortScope() }));
    expect(made).toBe(0);
  });

  it('gives an engine that reads it a real AbortSignal, aborted with the scope', async () => {
    const seen: AbortSignal[] = [];
    const engine = {
      searchBatch: async (requests: SearchRequest[], options?: BatchOptions) => {
        if (options?.signal) seen.push(options.signal);
        return requests.map(() => ({ d: 1 }));
      },
    };
    const scope = new AbortScope();
    const [scores] = await engineBatchCall(engine, 'search', 's')([request], { signal: scope });
    expect(scores).toEqual({ d: 1 });
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[0]!.aborted).toBe(false);
    scope.abort(new Error('left'));
    expect(seen[0]!.aborted).toBe(true);
    expect((seen[0]!.reason as Error).message).toBe('left');
  });

  it('keeps the signal in a copy an engine makes of its options ({ ...options })', async () => {
    const copies: BatchOptions[] = [];
    const engine = {
      searchBatch: async (requests: SearchRequest[], options?: BatchOptions) => {
        copies.push({ ...options });
        return requests.map(() => ({}));
      },
    };
    const scope = new AbortScope();
    await engineBatchCall(engine, 'search', 's')([request], { signal: scope });
    expect(copies[0]!.signal).toBe(scope.signal);
  });

  it("passes a caller's own AbortSignal through as it is", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const engine = {
      searchBatch: async (requests: SearchRequest[], options?: BatchOptions) => {
        seen.push(options?.signal);
        return requests.map(() => ({}));
      },
    };
    const controller = new AbortController();
    await engineBatchCall(engine, 'search', 's')([request], { signal: controller.signal });
    await engineBatchCall(engine, 'search', 's')([request]);
    expect(seen).toEqual([controller.signal, undefined]);
  });

  it('settles when the engine does, not at the abort (the batcher counts running calls)', async () => {
    let finish: (value: Record<string, number>[]) => void = () => undefined;
    const engine = {
      searchBatch: () => new Promise<Record<string, number>[]>((r) => (finish = r)),
    };
    const scope = new AbortScope();
    let settled = false;
    const pending = engineBatchCall(engine, 'search', 's')([request], { signal: scope });
    void pending.finally(() => (settled = true));
    scope.abort(new Error('deadline'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    finish([{ a: 1 }]);
    await expect(pending).resolves.toEqual([{ a: 1 }]);
  });
});
