/** Engines that misbehave on purpose, for the fault tests (isolation, deadlines, recovery). */
import type { BatchOptions, SearchRequest } from '../../src/engines/contract.js';

/** Throws on a whole batch when any request's query is "poison" (a plugin with no per-item check). */
export class PoisonableSearch {
  static batchSizes: number[] = [];
  async searchBatch(requests: SearchRequest[]) {
    PoisonableSearch.batchSizes.push(requests.length);
    await new Promise((r) => setTimeout(r, 2));
    if (requests.some((r) => r.query === 'poison')) throw new Error('cannot handle "poison"');
    return requests.map((r) => ({ [`d-${r.query}`]: 1 }));
  }
}

/** Returns a malformed result (a string) for the query "garbage", good ones for the rest. */
export class GarbageSearch {
  async searchBatch(requests: SearchRequest[]): Promise<Record<string, number>[]> {
    const results: unknown[] = requests.map((r) =>
      r.query === 'garbage' ? 'not a score map' : { [`d-${r.query}`]: 1 },
    );
    return results as Record<string, number>[]; // the lie a buggy plugin tells
  }
}

/**
 * Hangs (never answers, ignores its signal) while `HangingSearch.hang` is true; records the
 * signals it got so a test can see that abandoned batches are told.
 */
export class HangingSearch {
  static hang = true;
  static signals: AbortSignal[] = [];
  async searchBatch(requests: SearchRequest[], options?: BatchOptions) {
    if (options?.signal) HangingSearch.signals.push(options.signal);
    if (HangingSearch.hang) return new Promise<never>(() => undefined);
    return requests.map(() => ({ ok: 1 }));
  }
}

/** Sleeps `delay_ms` per batch but stops early when its signal aborts (a polite engine). */
export class PoliteSlowSearch {
  static aborted = 0;
  /** Batches begun: lets a test wait until a request is really in the engine. */
  static started = 0;
  readonly delay: number;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.delay = typeof config.delay_ms === 'number' ? config.delay_ms : 200;
  }
  async searchBatch(requests: SearchRequest[], options?: BatchOptions) {
    PoliteSlowSearch.started++;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, this.delay);
      options?.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        PoliteSlowSearch.aborted++;
        reject(new Error('aborted'));
      });
    });
    return requests.map(() => ({ slow: 1 }));
  }
}

export const FAULT_ENGINES = [PoisonableSearch, GarbageSearch, HangingSearch, PoliteSlowSearch];
