import { describe, expect, it } from 'vitest';
import { batchAborted, batchAbortReason, onBatchAbort } from '../../src/engines/batch-abort.js';
import type { BatchOptions } from '../../src/engines/contract.js';
import { engineBatchCall } from '../../src/processors/engine-call.js';
import { AbortScope } from '../../src/util/abort-scope.js';

/** The options irserve hands an engine's batch method for a batch under `signal`. */
async function optionsFor(signal: AbortScope | AbortSignal): Promise<BatchOptions | undefined> {
  let seen: BatchOptions | undefined;
  const engine = {
    async searchBatch(requests: unknown[], options?: BatchOptions) {
      seen = options;
      return requests.map(() => ({}));
    },
  };
  await engineBatchCall(engine, 'search', 's')([{ query: 'q', limit: 1 }], { signal });
  return seen;
}

describe('onBatchAbort', () => {
  it('hears an irserve scope abort without making the AbortSignal', async () => {
    const scope = new AbortScope();
    const options = await optionsFor(scope);
    let heard = 0;
    const stop = onBatchAbort(options, () => heard++);
    expect(batchAborted(options)).toBe(false);
    scope.abort(new Error('deadline'));
    expect(heard).toBe(1);
    expect(batchAborted(options)).toBe(true);
    expect(batchAbortReason(options).message).toBe('deadline');
    stop?.();
    // The options' own signal, read only now, is made aborted.
    expect(options?.signal?.aborted).toBe(true);
  });

  it('stops listening when asked', async () => {
    const scope = new AbortScope();
    const options = await optionsFor(scope);
    let heard = 0;
    onBatchAbort(options, () => heard++)?.();
    scope.abort(new Error('gone'));
    expect(heard).toBe(0);
  });

  it('takes a plain AbortSignal, and options without any', async () => {
    const controller = new AbortController();
    const options = await optionsFor(controller.signal);
    let heard = 0;
    onBatchAbort(options, () => heard++);
    controller.abort(new Error('client left'));
    expect(heard).toBe(1);
    expect(batchAbortReason(options).message).toBe('client left');
    expect(onBatchAbort(undefined, () => heard++)).toBeUndefined();
    expect(onBatchAbort({}, () => heard++)).toBeUndefined();
    expect(batchAborted(undefined)).toBe(false);
  });
});
