import { onAbort, reasonOf, type Abortable } from './abort-scope.js';

/**
 * Delay before retry number `attempt` (0-based): exponential from `baseMs`, capped at `capMs`,
 * with full jitter so that many clients retrying together do not synchronise.
 */
export function backoffDelay(
  attempt: number,
  random: () => number = Math.random,
  baseMs = 100,
  capMs = 2000,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Resolves after `ms`, or rejects with the signal's reason if it aborts first. The abort listener
 * goes with the timer: a long-lived signal does not collect one per retry.
 */
export const sleep = (ms: number, signal?: Abortable) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(reasonOf(signal));
    const timer = setTimeout(() => {
      stopListening?.();
      resolve();
    }, ms);
    const stopListening =
      signal &&
      onAbort(signal, () => {
        clearTimeout(timer);
        reject(reasonOf(signal));
      });
  });
