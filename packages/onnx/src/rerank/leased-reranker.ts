/**
 * What the in-process rerankers share: the model is loaded once (from the app's session pool,
 * so services naming the same model share it), identical pairs of a batch are scored once, and
 * `close` releases the lease. Each engine says how its model loads (`load`).
 */
import { BaseEngine, filesIdentity, type ScoreRequest } from 'irserve/plugin';
import type { Pair } from './unique-pairs.js';
import { uniquePairs } from './unique-pairs.js';

/** A loaded reranker: its hold on the shared model, and what scores pairs with it. */
export interface LoadedReranker {
  lease: { release(): Promise<void> };
  /** `close`, where the scorer holds resources of its own (contexts), runs before the release. */
  scorer: { score(pairs: readonly Pair[]): Promise<number[]>; close?(): Promise<void> };
  /** The model folder or file loaded (its content is part of the cache fingerprint). */
  model: string;
}

export abstract class LeasedReranker<Loaded extends LoadedReranker> extends BaseEngine {
  #ready: Promise<Loaded> | undefined;

  /** Acquires the model and builds the scorer; releases the lease itself when it then fails. */
  protected abstract load(): Promise<Loaded>;

  /** The loaded model, loading it on the first call. */
  protected opened(): Promise<Loaded> {
    return (this.#ready ??= this.load());
  }

  /** The content of the model loaded (the rest of what scores depend on is in the config). */
  async cacheIdentity(): Promise<string> {
    return filesIdentity({ model: (await this.opened()).model });
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    const loaded = await ready?.catch(() => undefined);
    await loaded?.scorer.close?.();
    await loaded?.lease.release();
  }

  /** Scores every (query, passage) of the batch; identical pairs run once. */
  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    const { pairs, slots } = uniquePairs(requests, this.constructor.name);
    if (pairs.length === 0) return requests.map(() => []);
    const { scorer } = await this.opened();
    const scores = await scorer.score(pairs);
    return slots.map((row) => row.map((slot) => scores[slot]!));
  }
}
