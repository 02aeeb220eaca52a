/**
 * Single-flight memo for `open()` steps: concurrent callers share one run; a failed run is
 * forgotten so the next call retries.
 */
export function onceAsync<T>(run: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= run().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
