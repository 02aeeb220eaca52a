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

/**
 * What the helpers read: a batch's options, or any options whose `signal` may be irserve's
 * scope (a collection view's `LookupOptions`), so a back-end cuts a lookup the same way.
 */
export type AbortOptions = BatchOptions | { readonly signal?: Abortable | undefined };

/** The batch's abort: irserve's scope when the options are irserve's, else their signal. */
function abortOf(options: AbortOptions | undefined): Abortable | undefined {
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
  options: AbortOptions | undefined,
  listener: () => void,
): (() => void) | undefined {
  const abort = abortOf(options);
  return abort === undefined ? undefined : onAbort(abort, listener);
}

/** Whether nobody waits for the batch any more. */
export function batchAborted(options: AbortOptions | undefined): boolean {
  return abortOf(options)?.aborted ?? false;
}

/** Why the batch was abandoned (an Error), once `batchAborted` says it was. */
export function batchAbortReason(options: AbortOptions | undefined): Error {
  const abort = abortOf(options);
  return abort === undefined ? new Error('aborted') : reasonOf(abort);
}
