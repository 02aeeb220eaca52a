import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { NUMERIC_RANKING, NUMERIC_SCORES } from '../helpers/engines.js';

interface Stage {
  stage: string;
  role: string;
  output: number;
  results?: { id: string; score: number; rank: number }[];
}

/** What each stage handed on, in explain: ranked arrays, so integer-like ids keep their order. */
describe('explain lists what each stage returned', () => {
  let app: App;
  beforeAll(async () => {
    app = await testApp({
      services: [
        { name: 'numeric', engine: 'NumericSearch', max_wait_time: 0 },
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0 },
      ],
    });
  });
  afterAll(() => app.close());

  async function stages(pipeline: string): Promise<Stage[]> {
    const response = await app.http.inject({
      method: 'POST',
      url: '/pipeline',
      payload: { pipeline, query: 'a b', explain: true },
    });
    expect(response.statusCode).toBe(200);
    return response.json<{ explain: { stages: Stage[] } }>().explain.stages;
  }

  it('ranks a search stage by score, ties by ascending id, with ranks from 1', async () => {
    const [search] = await stages('numeric');
    expect(search!.results).toEqual(
      NUMERIC_RANKING.map((id, index) => ({ id, score: NUMERIC_SCORES[id], rank: index + 1 })),
    );
  });

  it('lists the cut list of every search and merge stage, and none for an expander', async () => {
    const all = await stages('split{numeric%3, const}RRF%4');
    const byName = (name: string) => all.filter((stage) => stage.stage === name);
    expect(byName('split')[0]!.results).toBeUndefined();
    for (const stage of byName('numeric'))
      expect(stage.results!.map((doc) => doc.id)).toEqual(NUMERIC_RANKING.slice(0, 3));
    const [merge] = byName('RRF');
    expect(merge!.results).toHaveLength(4);
    expect(merge!.output).toBe(4);
    const scores = merge!.results!.map((doc) => doc.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(merge!.results!.map((doc) => doc.rank)).toEqual([1, 2, 3, 4]);
  });
});
