import type { DecomposeRequest, ScoreRequest, SearchRequest } from '../../src/engines/contract.js';

/** Fixed documents with descending scores, like RoutIR's ConstSearch. */
export class ConstSearch {
  readonly offset: number;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.offset = typeof config.start === 'number' ? config.start : 0;
  }
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(({ limit }) => {
      const out: Record<string, number> = {};
      for (let i = 0; i < Math.min(limit, 10); i++)
        out[`doc${this.offset + i}`] = Math.min(limit, 10) - i;
      return out;
    });
  }
}

/** Records every batch it receives (requests as given), for batching and pass-through tests. */
export class RecordingSearch {
  static batches: SearchRequest[][] = [];
  async searchBatch(requests: SearchRequest[]) {
    RecordingSearch.batches.push(requests);
    await new Promise((r) => setTimeout(r, 5));
    return requests.map((r) => ({ [`d-${r.query}`]: 1 }));
  }
}

/** Word overlap of query and passage (RoutIR's LenScorer shape). */
export class OverlapScore {
  async scoreBatch(requests: ScoreRequest[]) {
    return requests.map(({ query, passages }) => {
      const terms = new Set(query.toLowerCase().split(/\s+/));
      return passages.map((p) =>
        typeof p === 'string'
          ? p
              .toLowerCase()
              .split(/\s+/)
              .filter((w) => terms.has(w)).length
          : p.length,
      );
    });
  }
}

/** Scores bytes passages by their total size. */
export class ByteSizeScore {
  static readonly inputKind = 'bytes' as const;
  async scoreBatch(requests: ScoreRequest[]) {
    return requests.map(({ passages }) =>
      passages.map((p) => (Array.isArray(p) ? p.reduce((n, part) => n + part.length, 0) : -1)),
    );
  }
}

export class FailingSearch {
  async searchBatch(): Promise<Record<string, number>[]> {
    throw new Error('model exploded');
  }
}

export class WrongShapeSearch {
  async searchBatch() {
    return [];
  }
}

export class SplitDecomposer {
  async decomposeQueryBatch(requests: DecomposeRequest[]) {
    return requests.map(({ query, limit }) => query.split(/\s+/).slice(0, limit ?? 100));
  }
}

/** Sleeps `delay_ms` per batch (a stand-in for a GPU model). */
export class SleepSearch {
  readonly delay: number;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.delay = typeof config.delay_ms === 'number' ? config.delay_ms : 20;
  }
  async searchBatch(requests: SearchRequest[]) {
    await new Promise((r) => setTimeout(r, this.delay));
    return requests.map(() => ({ doc0: 1 }));
  }
}

/**
 * Document ids that are integer-like (as Cranfield's and MS MARCO's are): a JavaScript object
 * enumerates them in ascending numeric order, not in rank order, so the best document (1341)
 * comes last in `Object.keys`. 9 and 10 tie.
 */
export const NUMERIC_SCORES: Readonly<Record<string, number>> = {
  '643': 4.42,
  '749': 4.37,
  '1341': 4.5,
  '53': 3.86,
  '358': 4.02,
  '9': 1,
  '10': 1,
};
/** NUMERIC_SCORES' ids best first (equal scores by ascending id, as the server's cuts). */
export const NUMERIC_RANKING = ['1341', '643', '749', '358', '53', '10', '9'];

/** Answers NUMERIC_SCORES to every query (the ordering-trap regression tests). */
export class NumericSearch {
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(() => ({ ...NUMERIC_SCORES }));
  }
}

export const TEST_ENGINES = [
  NumericSearch,
  ConstSearch,
  RecordingSearch,
  OverlapScore,
  ByteSizeScore,
  FailingSearch,
  WrongShapeSearch,
  SplitDecomposer,
  SleepSearch,
];
