/** A value loaded on first use, then at hand without a promise. */
export interface OnDemand<T> {
  /** The value once loaded; undefined until then. */
  readonly current: T | undefined;
  /** Starts the load on the first call (one load for every caller); the same promise after. */
  get(): Promise<T>;
}

/**
 * Wraps `load` so that it runs at most once, when first asked for. A caller on a hot path
 * checks `current` and only awaits `get()` while the value is not there yet, so a loaded value
 * costs no promise per call. A failed load stays failed (the same rejected promise).
 *
 * @example
 * const runner = onDemand(async () => (await import('./runner.js')).createRunner());
 * const run = (x: string) => runner.current?.run(x) ?? runner.get().then((r) => r.run(x));
 */
export function onDemand<T>(load: () => Promise<T>): OnDemand<T> {
  let current: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get current() {
      return current;
    },
    get: () =>
      (loading ??= load().then((value) => {
        current = value;
        return value;
      })),
  };
}
