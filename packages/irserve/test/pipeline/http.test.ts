import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createApp } from '../../src/app.js';
import { quietLogger } from '../helpers/logger.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { testApp } from '../helpers/app.js';

let dir: string;
let app: App;

function config(extra: Record<string, unknown> = {}) {
  return {
    services: [
      { name: 'const', engine: 'ConstSearch', max_wait_time: 0.001 },
      { name: 'const2', engine: 'ConstSearch', config: { start: 5 }, max_wait_time: 0.001 },
      { name: 'const_far', engine: 'ConstSearch', config: { start: 100 }, max_wait_time: 0.001 },
      { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0.001 },
      { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0.001 },
    ],
    collections: [
      {
        name: 'docs',
        default_view: 'text',
        views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
      },
    ],
    pipeline_aliases: { hybrid: '{const, const2}RRF%10' },
    pipeline_cache: 32,
    ...extra,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-pipeline-'));
  const docs = Array.from({ length: 20 }, (_, i) => ({
    id: `doc${i}`,
    text: `document ${i} about ${i % 2 === 0 ? 'neural retrieval' : 'cooking'}`,
  }));
  await writeFile(join(dir, 'docs.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  app = await testApp(config(), { cacheDir: join(dir, 'cache') });
});

afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (body: Record<string, unknown>) =>
  app.http.inject({ method: 'POST', url: '/pipeline', payload: body });

describe('POST /pipeline end to end', () => {
  it('{const, const2}RRF%10 >> overlap: fusion, then rerank with the collection text', async () => {
    const response = await post({
      pipeline: '{const, const2}RRF%10 >> overlap',
      collection: 'docs',
      query: 'neural retrieval',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      service: 'overlap',
      collection: 'docs',
      processed: true,
      cached: false,
    });
    const scores = body.scores as Record<string, number>;
    expect(Object.keys(scores)).toHaveLength(10);
    // Even documents mention both query words, odd ones neither: scores stay with their documents.
    for (const [id, score] of Object.entries(scores))
      expect(score, id).toBe(Number(id.slice(3)) % 2 === 0 ? 2 : 0);
  });

  it('answers the same request from the pipeline cache', async () => {
    const request = { pipeline: 'const%3 >> overlap', collection: 'docs', query: 'cooking' };
    expect((await post(request)).json().cached).toBe(false);
    const again = (await post(request)).json();
    expect(again.cached).toBe(true);
    expect(again.scores).toEqual({ doc0: 0, doc1: 1, doc2: 0 });
  });

  it('expands config pipeline_aliases and lists them in /avail', async () => {
    const body = (await post({ pipeline: 'hybrid%4', query: 'q' })).json();
    expect(body.service).toBe('RRF');
    expect(Object.keys(body.scores)).toHaveLength(4);
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.pipeline_aliases).toEqual({ hybrid: '{const, const2}RRF%10' });
    expect(avail.fuse).toEqual(
      expect.arrayContaining([
        'RRF',
        'ScoreFusion',
        'CombMNZ',
        'MinMaxFusion',
        'ZScoreFusion',
        'WeightedRRF',
        'Borda',
      ]),
    );
  });

  it('expander, explain and every fusion rule run through HTTP', async () => {
    for (const rule of [
      'RRF',
      'ScoreFusion',
      'CombMNZ',
      'MinMaxFusion',
      'ZScoreFusion',
      'WeightedRRF',
      'Borda',
    ]) {
      const response = await post({
        pipeline: `split%2{const%3}${rule}%5`,
        query: 'a b c',
        explain: true,
      });
      expect(response.statusCode, rule).toBe(200);
      const body = response.json();
      expect(body.expanded_queries).toEqual(['a', 'b']);
      expect(body.explain.stages.map((s: { role: string }) => s.role)).toEqual([
        'expand',
        'search',
        'search',
        'merge',
      ]);
    }
  });

  it.each([
    [{ pipeline: '{const,const2', query: 'q' }, 'ERR_PIPELINE_SYNTAX', /column 14/],
    [
      { pipeline: 'nosuch%10 >> overlap', query: 'q', collection: 'docs' },
      'ERR_SERVICE_NOT_FOUND',
      /nosuch/,
    ],
    [
      { pipeline: 'const%5 >> overlap', query: 'q', collection: 'nope' },
      'ERR_COLLECTION_NOT_FOUND',
      /nope/,
    ],
    [{ pipeline: 'const%5 >> overlap', query: 'q' }, 'ERR_PIPELINE_PLAN', /collection/],
    [
      { pipeline: 'const', query: 'q', runtime_kwargs: { zzz: { limit: 2 } } },
      'ERR_PIPELINE_PLAN',
      /zzz/,
    ],
    [
      { pipeline: 'const_far%10 >> overlap', query: 'q', collection: 'docs' },
      'ERR_DOC_NOT_FOUND',
      /doc100/,
    ],
    [
      { pipeline: '{const}RRF', query: 'q', runtime_kwargs: { RRF: { rrf_k: -1 } } },
      'ERR_BAD_REQUEST',
      /rrf_k/,
    ],
    [{ pipeline: 'const' }, 'ERR_BAD_REQUEST', /query/],
  ])('%j is a 400 with code and message', async (request, code, message) => {
    const response = await post(request);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe(code);
    expect(response.json().error).toMatch(message);
  });

  it('a syntax error body carries the column and what was expected', async () => {
    const body = (await post({ pipeline: '{a}', query: 'q' })).json();
    expect(body).toMatchObject({ code: 'ERR_PIPELINE_SYNTAX', column: 4 });
    expect(body.expected).toEqual(["a fusion service name after '}'"]);
  });
});

describe('start-up', () => {
  it('refuses pipeline_aliases with a cycle, a clash or a syntax error', async () => {
    for (const [aliases, message] of [
      [{ a: 'b', b: 'a' }, /cycle: a -> b -> a/],
      [{ const: 'const2' }, /pipeline_aliases.const: a service has the same name/],
      [{ x: '{const' }, /pipeline_aliases.x: pipeline syntax error/],
    ] as const) {
      await expect(
        createApp(config({ pipeline_aliases: aliases }), {
          logger: quietLogger(),
          engines: TEST_ENGINES,
        }),
      ).rejects.toThrow(message);
    }
  });
});
