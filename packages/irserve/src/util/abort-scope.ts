/** Where an AbortScope's signal points back to its scope (a symbol: never serialized). */
const SCOPE = Symbol('irserve.abortScope');

type ScopedSignal = AbortSignal & { [SCOPE]?: AbortScope };

/**
 * What irserve's own code listens to for an abort: an AbortScope of its own, or a caller's
 * AbortSignal. Both have `aborted` and `reason`, and `onAbort`, `raceAbort` and `reasonOf` take
 * either; a scope's `signal` is the AbortSignal to hand to an engine or a library.
 */
export type Abortable = AbortScope | AbortSignal;

/**
 * An abort that irserve's own code listens to through a plain list, with an AbortSignal made
 * only when something asks for one (`signal`). In Node 20 an AbortController costs about 6-9 µs
 * of CPU to make, and an `abort` listener on its signal about 8-17 µs to add and remove, which
 * also keeps short-lived objects alive through young-generation collections; a request made two
 * to five of them (its client's disconnect, its deadlines, its batches) and listened three to
 * six times, though almost none is ever aborted and most engines never look at the signal.
 * Once made, the signal aborts with the scope, so engines and anything else that listens to it
 * the usual way are told as before.
 *
 * @example
 * const scope = new AbortScope();
 * const stop = onAbort(scope, () => console.log('aborted'));
 * scope.abort(new Error('deadline')); // logs once; stop() would have removed the listener
 */
export class AbortScope {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #listeners: (() => void)[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The abort's reason (as an AbortSignal's: a DOMException AbortError when none was given). */
  get reason(): unknown {
    return this.#reason;
  }

  /** An AbortSignal that aborts with this scope (made on first use; aborted if the scope is). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      (controller.signal as ScopedSignal)[SCOPE] = this;
      if (this.#aborted) controller.abort(this.#reason);
      this.#controller = controller;
    }
    return this.#controller.signal;
  }

  /**
   * Aborts with `reason`, then calls each listener once; later calls do nothing. A listener that
   * throws does not keep the others from running; the first error is rethrown after them.
   */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#controller?.abort(this.#reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (!listeners) return;
    let failure: { error: unknown } | undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Adds `listener` for the abort; does nothing once aborted (as for an AbortSignal). */
  add(listener: () => void): void {
    if (this.#aborted) return;
    (this.#listeners ??= []).push(listener);
  }

  remove(listener: () => void): void {
    const listeners = this.#listeners;
    if (!listeners) return;
    const index = listeners.indexOf(listener);
    if (index >= 0) listeners.splice(index, 1);
  }
}

/**
 * Calls `listener` once when `signal` aborts; returns what stops listening. A scope, or the
 * signal of one, keeps it in the scope's list; any other (a caller's own AbortSignal) gets an
 * `abort` event listener. As with an event listener, a signal that has already aborted never
 * calls it: check `signal.aborted` first.
 *
 * @example
 * const stop = onAbort(signal, () => reject(signal.reason));
 * try { return await work(); } finally { stop(); }
 */
export function onAbort(signal: Abortable, listener: () => void): () => void {
  const scope = signal instanceof AbortScope ? signal : (signal as ScopedSignal)[SCOPE];
  if (scope !== undefined) {
    scope.add(listener);
    return () => scope.remove(listener);
  }
  const target = signal as AbortSignal;
  target.addEventListener('abort', listener, { once: true });
  return () => target.removeEventListener('abort', listener);
}

/**
 * `promise`, or a rejection with the signal's reason as soon as it aborts: the caller stops
 * waiting for work that may go on (an engine that ignores its signal) and is abandoned.
 *
 * @example
 * await raceAbort(engine.searchBatch(requests, { signal }), signal);
 */
export function raceAbort<T>(promise: Promise<T>, signal: Abortable | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined); // abandoned: its late failure must not go unhandled
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => {
      promise.catch(() => undefined);
      reject(reasonOf(signal));
    });
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The AbortSignal of `signal`, for a library that takes one (a scope makes it now). */
export function abortSignalOf(signal: Abortable): AbortSignal {
  return signal instanceof AbortScope ? signal.signal : signal;
}

/** The abort reason as an Error (AbortSignal reasons may be any value). */
export function reasonOf(signal: Abortable): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new Error(typeof reason === 'string' ? reason : 'aborted');
}
