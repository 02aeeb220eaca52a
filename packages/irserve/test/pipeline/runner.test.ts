import { describe, expect, it } from 'vitest';
import { makeWorld, rejection } from './world.js';

describe('the response envelope', () => {
  it('has the spec fields, service = the last stage', async () => {
    const { run } = makeWorld();
    const body = await run({ pipeline: 's1 >> num', query: 'q', collection: 'docs' });
    expect(Object.keys(body).sort()).toEqual(
      [
        'cached',
        'collection',
        'pipeline',
        'processed',
        'query',
        'scores',
        'service',
        'timestamp',
      ].sort(),
    );
    expect(body).toMatchObject({
      cached: false,
      collection: 'docs',
      pipeline: 's1 >> num',
      processed: true,
      query: 'q',
      service: 'num',
    });
    expect(typeof body.timestamp).toBe('number');
  });

  it('names the merger when the last stage is a group; collection is optional without reranking', async () => {
    const { run } = makeWorld();
    const body = await run({ pipeline: '{s1, s2}RRF%4', query: 'q' });
    expect(body.service).toBe('RRF');
    expect(body.collection).toBeUndefined();
    expect(body.expanded_queries).toBeUndefined();
  });

  it('echoes the pipeline as sent, not its canonical form', async () => {
    const { run } = makeWorld();
    expect((await run({ pipeline: ' s1%2 ', query: 'q' })).pipeline).toBe(' s1%2 ');
  });
});

describe('explain', () => {
  it('reports every stage: service, role, sizes, cached and milliseconds', async () => {
    const { run } = makeWorld();
    const body = await run({
      pipeline: 'split{s1%2, s2}RRF%3 >> num',
      query: 'x y',
      collection: 'docs',
      explain: true,
    });
    const explain = body.explain as {
      plan: string;
      pipeline_cache: string;
      stages: Record<string, unknown>[];
    };
    expect(explain.plan).toBe('split{s1%2, s2}RRF%3 >> num');
    expect(explain.pipeline_cache).toBe('off');
    const summary = explain.stages.map(({ stage, role, query, input, output, cached }) => ({
      stage,
      role,
      query,
      input,
      output,
      cached,
    }));
    expect(summary[0]).toEqual({
      stage: 'split',
      role: 'expand',
      query: 'x y',
      input: 1,
      output: 2,
      cached: false,
    });
    expect(summary.filter((s) => s.role === 'search')).toHaveLength(4);
    expect(summary.at(-2)).toEqual({
      stage: 'RRF',
      role: 'merge',
      query: 'x y',
      input: 8,
      output: 3,
      cached: false,
    });
    expect(summary.at(-1)).toEqual({
      stage: 'num',
      role: 'rerank',
      query: 'x y',
      input: 3,
      output: 3,
      cached: false,
    });
    for (const stage of explain.stages) expect(stage.ms).toBeGreaterThanOrEqual(0);
  });

  it('is absent unless asked for', async () => {
    const { run } = makeWorld();
    expect((await run({ pipeline: 's1', query: 'q' })).explain).toBeUndefined();
  });
});

describe('the pipeline cache', () => {
  const cache = { size: 16, ttl: 600 };

  it('answers a repeated request from the cache without calling any engine', async () => {
    const { run, services } = makeWorld({ cache });
    const request = { pipeline: '{s1, s2}RRF >> num', query: 'q', collection: 'docs' };
    const first = await run(request);
    const calls = services.calls.length;
    const second = await run({ ...request, pipeline: '{ s1,s2 }RRF>>num' });
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.scores).toEqual(first.scores);
    expect(second.timestamp).toBe(first.timestamp);
    expect(second.pipeline).toBe('{ s1,s2 }RRF>>num');
    expect(services.calls.length).toBe(calls);
  });

  it('keys on query, collection, runtime_kwargs (in any key order) and limit', async () => {
    const { run } = makeWorld({ cache });
    const base = { pipeline: '{s1, s2}RRF', query: 'q' };
    await run({ ...base, runtime_kwargs: { RRF: { rrf_k: 1, x: 2 } } });
    expect((await run({ ...base, runtime_kwargs: { RRF: { x: 2, rrf_k: 1 } } })).cached).toBe(true);
    expect((await run({ ...base, runtime_kwargs: { RRF: { rrf_k: 2 } } })).cached).toBe(false);
    expect((await run({ ...base, query: 'other' })).cached).toBe(false);
    expect((await run({ ...base, limit: 1 })).cached).toBe(false);
    expect((await run({ ...base, collection: 'docs' })).cached).toBe(false);
  });

  it('says hit in explain, with no stages run', async () => {
    const { run } = makeWorld({ cache });
    await run({ pipeline: 's1', query: 'q' });
    const body = await run({ pipeline: 's1', query: 'q', explain: true });
    expect(body.explain).toEqual({ plan: 's1', pipeline_cache: 'hit', stages: [] });
  });

  it('never caches errors, and is off with size 0 or -1', async () => {
    for (const size of [0, -1]) {
      const { run } = makeWorld({ cache: { size, ttl: 600 } });
      await run({ pipeline: 's1', query: 'q' });
      expect((await run({ pipeline: 's1', query: 'q' })).cached).toBe(false);
    }
    const world = makeWorld({ cache });
    await rejection(world.run({ pipeline: 'const_far >> num', query: 'q', collection: 'docs' }));
    world.content.delayMs = 0;
    const again = await rejection(
      world.run({ pipeline: 'const_far >> num', query: 'q', collection: 'docs' }),
    );
    expect(again.code).toBe('ERR_DOC_NOT_FOUND');
  });
});

describe('request validation', () => {
  it.each([
    [{ query: 'q' }, /pipeline/],
    [{ pipeline: 's1' }, /query/],
    [{ pipeline: '', query: 'q' }, /pipeline: must not be empty/],
    [{ pipeline: 's1', query: 'q', runtime_kwargs: { s1: 3 } }, /runtime_kwargs/],
    [{ pipeline: 's1', query: 'q', explain: 'yes' }, /explain/],
    [{ pipeline: 's1', query: 'q', limit: 0 }, /limit/],
    [{ pipeline: 's1', query: 'q', colection: 'docs' }, /colection/],
  ])('%j is a 400 naming the field', async (body, pattern) => {
    const { run } = makeWorld();
    const error = await rejection(run(body));
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(error.message).toMatch(pattern);
  });

  it('a syntax error is ERR_PIPELINE_SYNTAX with the column', async () => {
    const { run } = makeWorld();
    const error = await rejection(run({ pipeline: '{s1,s2', query: 'q' }));
    expect(error.code).toBe('ERR_PIPELINE_SYNTAX');
    expect(error.httpStatus).toBe(400);
    expect(error.details).toMatchObject({ column: 7 });
  });
});
