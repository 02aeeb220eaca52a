/** A hold on a shared value; `release()` once when done (a second call does nothing). */
export interface SharedLease<T> {
  readonly value: T;
  readonly release: () => Promise<void>;
}

interface Entry<T> {
  value: Promise<T>;
  holders: number;
}

/**
 * Values shared by reference count under a key (a loaded model, a session): the first
 * `acquire` of a key loads it, every holder gets the same value, and the last `release`
 * disposes of it. A load that fails is forgotten, so the next `acquire` tries again. A pool
 * belongs to an app (kept in `EngineContext.resources`), never to a module.
 *
 * @example
 * const models = new SharedByKey<Model>((model) => model.close());
 * const lease = await models.acquire(path, () => loadModel(path));
 * try { use(lease.value); } finally { await lease.release(); }
 */
export class SharedByKey<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #dispose: (value: T) => Promise<void>;

  constructor(dispose: (value: T) => Promise<void>) {
    this.#dispose = dispose;
  }

  /** The value of `key`, loaded by `load` on first use (concurrent callers share one load). */
  async acquire(key: string, load: () => Promise<T>): Promise<SharedLease<T>> {
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { value: (async () => load())(), holders: 0 };
      this.#entries.set(key, entry);
    }
    const held = entry;
    held.holders++;
    let value: T;
    try {
      value = await held.value;
    } catch (error) {
      await this.#drop(key, held);
      throw error;
    }
    let released = false;
    return {
      value,
      release: async () => {
        if (released) return;
        released = true;
        await this.#drop(key, held);
      },
    };
  }

  /** Values held now (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  async #drop(key: string, entry: Entry<T>): Promise<void> {
    entry.holders--;
    if (entry.holders > 0) return;
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    const loaded = await entry.value.then(
      (value) => ({ value }),
      () => undefined,
    );
    if (loaded) await this.#dispose(loaded.value);
  }
}
