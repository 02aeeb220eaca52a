import { IrserveError } from '../errors.js';

/** A signal that aborts at a deadline, or with a parent; `dispose` releases its timer. */
export interface DeadlineSignal {
  signal: AbortSignal | undefined;
  dispose: () => void;
}

/** The ERR_TIMEOUT a request gets when its deadline passes (HTTP 504, gRPC DEADLINE_EXCEEDED). */
export function timeoutError(what: string): IrserveError {
  return new IrserveError('ERR_TIMEOUT', `${what} did not finish before its deadline`);
}

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
  parent: AbortSignal | undefined,
  what: string,
): DeadlineSignal {
  if (deadline === undefined || !Number.isFinite(deadline))
    return { signal: parent, dispose: () => undefined };
  const controller = new AbortController();
  const remaining = deadline - Date.now();
  if (remaining <= 0) {
    controller.abort(timeoutError(what));
    return { signal: controller.signal, dispose: () => undefined };
  }
  const timer = setTimeout(() => controller.abort(timeoutError(what)), remaining);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * `promise`, or a rejection with the signal's reason as soon as it aborts: the caller stops
 * waiting for work that may go on (an engine that ignores its signal) and is abandoned.
 *
 * @example
 * await raceAbort(engine.searchBatch(requests, { signal }), signal);
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined); // abandoned: its late failure must not go unhandled
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(reasonOf(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The abort reason as an Error (AbortSignal reasons may be any value). */
export function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new Error(typeof reason === 'string' ? reason : 'aborted');
}
