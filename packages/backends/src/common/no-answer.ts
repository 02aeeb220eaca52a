/**
 * A deadline on a back-end call that holds whatever the back-end does: a server that stops
 * answering (frozen, a half-open socket) fails the call at the deadline, the time spent waiting
 * for a pooled connection included, instead of at the driver's own limits one after another.
 */

/** The back-end did not answer before the call's deadline (ERR_UPSTREAM_TIMEOUT, 504). */
export class NoAnswerError extends Error {
  override readonly name = 'TimeoutError';
  /** Read by `isNoAnswer` (a name alone is shared with other timeouts). */
  readonly noAnswer = true;
}

/**
 * Whether `error` says the back-end gave no answer at all in time (a server-side statement
 * timeout is an answer: the server is alive).
 *
 * @example isNoAnswer(new NoAnswerError('no answer within 2 s')) // true
 */
export function isNoAnswer(error: unknown): boolean {
  return error instanceof Error && (error as { noAnswer?: unknown }).noAnswer === true;
}

export interface DeadlineHooks<T> {
  /** The value when it arrives after the deadline (a pooled connection to give back). */
  late?: (value: T) => void;
  /** Called once at the deadline (cancel the statement on the server). */
  expired?: () => void;
}

/** When a call must end: `at` (ms since the epoch), `seconds` after it began (the `timeout`). */
export interface Deadline {
  at: number;
  seconds: number;
}

/**
 * A deadline `seconds` from now.
 *
 * @example const deadline = deadlineIn(settings.timeout);
 */
export function deadlineIn(seconds: number): Deadline {
  return { at: Date.now() + seconds * 1000, seconds };
}

/**
 * `work`, or a NoAnswerError at the deadline naming what was awaited.
 *
 * @example const client = await within(pool.connect(), deadline, 'a pooled connection', { late: (c) => c.release() });
 */
export function within<T>(
  work: Promise<T>,
  deadline: Deadline,
  what: string,
  hooks: DeadlineHooks<T> = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(
      () => {
        expired = true;
        hooks.expired?.();
        reject(new NoAnswerError(`no answer within ${deadline.seconds} s (waiting for ${what})`));
      },
      Math.max(0, deadline.at - Date.now()),
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        if (expired) hooks.late?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!expired) reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
