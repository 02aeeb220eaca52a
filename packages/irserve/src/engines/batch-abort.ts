/**
 * Listening to a batch's abort without making its AbortSignal. irserve hands each batch method
 * `{ signal }`, whose AbortSignal is made on first read (a few µs, see AbortScope); an engine on
 * a hot path that only needs to know when nobody waits any more (to cancel a back-end query)
 * listens through these helpers, which go to irserve's own scope behind the options.
 */
import type { BatchOptions } from './contract.js';
import { onAbort, reasonOf, type Abortable } from '../util/abort-scope.js';

/** Where the batch options irserve makes keep the batch's own abort (a symbol: never sent). */
export const BATCH_ABORT = Symbol('irserve.batchAbort');

type WithAbort = BatchOptions & { [BATCH_ABORT]?: Abortable };

/** The batch's abort: irserve's scope when the options are irserve's, else their signal. */
function abortOf(options: BatchOptions | undefined): Abortable | undefined {
  if (options === undefined) return undefined;
  return (options as WithAbort)[BATCH_ABORT] ?? options.signal;
}

/**
 * Calls `listener` once when nobody waits for the batch any more; returns what stops listening,
 * or undefined when the batch cannot be abandoned (no signal). Check `batchAborted` first: an
 * abort that already happened never calls it.
 *
 * @example
 * const stop = onBatchAbort(options, () => cancelQuery());
 * try { return await query(); } finally { stop?.(); }
 */
export function onBatchAbort(
  options: BatchOptions | undefined,
  listener: () => void,
): (() => void) | undefined {
  const abort = abortOf(options);
  return abort === undefined ? undefined : onAbort(abort, listener);
}

/** Whether nobody waits for the batch any more. */
export function batchAborted(options: BatchOptions | undefined): boolean {
  return abortOf(options)?.aborted ?? false;
}

/** Why the batch was abandoned (an Error), once `batchAborted` says it was. */
export function batchAbortReason(options: BatchOptions | undefined): Error {
  const abort = abortOf(options);
  return abort === undefined ? new Error('aborted') : reasonOf(abort);
}
