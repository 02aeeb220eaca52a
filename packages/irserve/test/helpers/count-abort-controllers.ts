/**
 * Counts the AbortControllers made while `run` runs (the global is swapped for a subclass that
 * counts, then put back): how a test sees that an AbortSignal was, or was not, made.
 */
export async function countAbortControllers(run: () => unknown): Promise<number> {
  const original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await run();
  } finally {
    globalThis.AbortController = original;
  }
  return made;
}
