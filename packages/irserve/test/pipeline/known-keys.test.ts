/**
 * The pipeline hands the keys of its rankings on (from the search services' result checks and
 * its own cuts) instead of reading them again: what it answers, the order of the score map
 * included, must be what it answered when every step read the keys itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Scores, SearchRequest } from '../../src/engines/contract.js';
import { Borda, RRF, WeightedRRF } from '../../src/engines/fusion/index.js';
import { SCORES_BEST_FIRST } from '../../src/core/envelope.js';
import { topN } from '../../src/pipeline/scores.js';
import { serializeBody } from '../../src/transports/http/serialize.js';
import { testApp } from '../helpers/app.js';

/** A map of about 120 documents for a query: ties, integer-like ids, not always best first. */
function mapOf(query: string, salt: number, digits: boolean): Scores {
  let state = [...`${query}/${salt}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 2147483647, 7);
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const scores = Object.create(null) as Scores;
  for (let i = 0; i < 120; i++) {
    const id =
      digits && next() < 0.3 ? String(Math.floor(next() * 400)) : `d${Math.floor(next() * 400)}`;
    scores[id] = Math.floor(next() * 30);
  }
  return scores;
}

class MixedSearch {
  readonly salt: number;
  readonly digits: boolean;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.salt = Number(config.salt);
    this.digits = config.digits === true;
  }
  async searchBatch(requests: SearchRequest[]) {
    return requests.map((r) => mapOf(r.query, this.salt, this.digits));
  }
}

let app: App;
beforeAll(async () => {
  const service = (name: string, salt: number, digits: boolean) => ({
    name,
    engine: 'MixedSearch',
    config: { salt, digits },
    cache: -1,
    max_wait_time: 0,
  });
  app = await testApp(
    {
      services: [
        service('a', 1, false),
        service('b', 2, false),
        service('n', 3, true),
        { ...service('cached', 4, false), cache: 100 },
      ],
    },
    { engines: [MixedSearch] },
  );
});
afterAll(async () => {
  await app?.close();
});

const entries = (scores: Scores) => Object.keys(scores).map((id) => [id, scores[id]]);

describe('a pipeline that hands its keys on', () => {
  const rules = { RRF: new RRF(), WeightedRRF: new WeightedRRF(), Borda: new Borda() };
  const cases: [
    string,
    string,
    number | undefined,
    string,
    number | undefined,
    number | undefined,
  ][] = [
    ['a', 'b', 100, 'RRF', 100, undefined],
    ['a', 'n', 50, 'RRF', 60, undefined],
    ['n', 'b', undefined, 'RRF', undefined, 40],
    ['a', 'cached', 30, 'WeightedRRF', 25, undefined],
    ['cached', 'n', 200, 'Borda', 70, 10],
    // No cut after the fusion: the order of the fused map's keys shows in the answer.
    ['n', 'a', 50, 'RRF', undefined, undefined],
    ['b', 'n', 40, 'Borda', undefined, undefined],
    ['n', 'cached', undefined, 'WeightedRRF', undefined, undefined],
  ];
  for (const [x, y, cut, rule, fusedCut, limit] of cases) {
    const pct = (n: number | undefined) => (n === undefined ? '' : `%${n}`);
    const pipeline = `{${x}${pct(cut)}, ${y}${pct(cut)}}${rule}${pct(fusedCut)}`;
    it(`${pipeline}${limit === undefined ? '' : ` limit ${limit}`}: as when every step read the keys`, async () => {
      for (const query of ['alpha beta', 'gamma', 'delta epsilon', 'alpha beta']) {
        const salts: Record<string, [number, boolean]> = {
          a: [1, false],
          b: [2, false],
          n: [3, true],
          cached: [4, false],
        };
        const rankings = [x, y].map((name) => topN(mapOf(query, ...salts[name]!), cut));
        const fused = rules[rule as keyof typeof rules].fuse({ query, rankings });
        const expected = topN(topN(fused, fusedCut), limit);
        const request = { pipeline, query, ...(limit ? { limit } : {}) };
        const body = await app.core.pipelines.run(request);
        expect(entries(body.scores as Scores)).toEqual(entries(expected));
        // A map the cut left best first is marked so (when no id may be integer-like), and the
        // answer's bytes are what the serializer writes for the same envelope unmarked.
        const integerLike = Object.keys(expected).some((id) => /^[0-9]/.test(id));
        const size = Object.keys(fused).length;
        const kept = Math.min(size, fusedCut ?? Infinity);
        const wasCut = kept < size || kept > (limit ?? Infinity);
        expect(SCORES_BEST_FIRST in body).toBe(wasCut && !integerLike);
        const answer = await app.http.inject({
          method: 'POST',
          url: '/pipeline',
          payload: request,
        });
        const { timestamp: _t, ...unmarked } = { ...body };
        expect(answer.payload).toBe(
          serializeBody({ ...unmarked, timestamp: answer.json().timestamp }),
        );
      }
    });
  }
});
