import { IrserveError } from '../errors.js';
import { AbortScope, onAbort, type Abortable } from './abort-scope.js';

/** What aborts at a deadline, or with a parent; `dispose` releases its timer. */
export interface DeadlineSignal {
  signal: Abortable | undefined;
  dispose: () => void;
}

/** The ERR_TIMEOUT a request gets when its deadline passes (HTTP 504, gRPC DEADLINE_EXCEEDED). */
export function timeoutError(what: string): IrserveError {
  return new IrserveError('ERR_TIMEOUT', `${what} did not finish before its deadline`);
}

const none = (): void => undefined;

/**
 * Combines `parent` (a client that went away) with a deadline (`Date.now()` milliseconds): the
 * signal aborts with `parent`'s reason, or with ERR_TIMEOUT naming `what` when the deadline
 * passes first. Without a deadline the parent is returned as it is (no timer, no allocation).
 *
 * @example
 * const { signal, dispose } = deadlineSignal(Date.now() + 500, undefined, 'service "bm25"');
 * try { await work(signal); } finally { dispose(); }
 */
export function deadlineSignal(
  deadline: number | undefined,
  parent: Abortable | undefined,
  what: string,
): DeadlineSignal {
  if (deadline === undefined || !Number.isFinite(deadline))
    return { signal: parent, dispose: none };
  const scope = new AbortScope();
  const remaining = deadline - Date.now();
  if (remaining <= 0) {
    scope.abort(timeoutError(what));
    return { signal: scope, dispose: none };
  }
  const timer = setTimeout(() => scope.abort(timeoutError(what)), remaining);
  const onParentAbort = () => scope.abort(parent?.reason);
  let stopParent: () => void = none;
  if (parent?.aborted) onParentAbort();
  else if (parent) stopParent = onAbort(parent, onParentAbort);
  return {
    signal: scope,
    dispose: () => {
      clearTimeout(timer);
      stopParent();
    },
  };
}
