import { describe, expect, it } from 'vitest';
import { makeWorld, rejection } from './world.js';

const rrf = (...ranks: number[]) => ranks.reduce((sum, r) => sum + 1 / (60 + r), 0);

describe('the four RoutIR pipeline bugs are absent', () => {
  it('rerank scores stay with their own documents (ids not in sorted order)', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 'zyx >> num', query: 'q', collection: 'docs' });
    // zyx returns zzz, mmm, aaa; their texts are 1, 3, 2. RoutIR fetched sorted, zipped unsorted.
    expect(body.scores).toEqual({ zzz: 1, mmm: 3, aaa: 2 });
    expect(services.requestsOf('num')[0]!.passages).toEqual(['1', '3', '2']);
  });

  it('branches under an expander search the sub-queries, not the original query', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 'split{echo}ScoreFusion', query: 'cats dogs' });
    expect(services.requestsOf('echo').map((r) => r.query)).toEqual(['cats', 'dogs']);
    expect(body.scores).toEqual({ 'q:cats': 1, 'q:dogs': 1 });
    expect(body.expanded_queries).toEqual(['cats', 'dogs']);
    expect(services.requestsOf('ScoreFusion')[0]!.query).toBe('cats dogs');
  });

  it('A >> {B, C}M reranks A in each branch and the merger receives the branch lists', async () => {
    const { run, services } = makeWorld();
    const body = await run({
      pipeline: 's1 >> {num, neg}ScoreFusion',
      query: 'q',
      collection: 'docs',
    });
    for (const scorer of ['num', 'neg'])
      expect(services.requestsOf(scorer)[0]!.passages).toEqual(['30', '10', '20']);
    const rankings = services.requestsOf('ScoreFusion')[0]!.rankings;
    expect(rankings).toEqual([
      { a: 30, b: 10, c: 20 },
      { a: -30, b: -10, c: -20 },
    ]);
    expect(body.scores).toEqual({ a: 0, b: 0, c: 0 });
    expect(body.service).toBe('ScoreFusion');
  });

  it('a stage whose documents are missing from the collection is a 400 naming them', async () => {
    const { run, services } = makeWorld();
    const error = await rejection(
      run({ pipeline: 'const_far%10 >> num', query: 'q', collection: 'docs' }),
    );
    expect(error.code).toBe('ERR_DOC_NOT_FOUND');
    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/stage 'num'.*collection 'docs'.*"ghost", "phantom"/);
    expect(error.details).toMatchObject({ missing: ['ghost', 'phantom'], missing_count: 2 });
    expect(services.requestsOf('num')).toHaveLength(0);
  });
});

describe('concurrency', () => {
  it('runs the branches of a group concurrently', async () => {
    const world = makeWorld();
    let release!: () => void;
    const started = new Promise<void>((resolve) => (release = resolve));
    // `first` can only finish once `second` has started: sequential branches would hang.
    world.services.add('search', 'first', async () => {
      await started;
      return { x: 1 };
    });
    world.services.add('search', 'second', () => {
      release();
      return { y: 1 };
    });
    const body = await world.run({ pipeline: '{first, second}ScoreFusion', query: 'q' });
    expect(body.scores).toEqual({ x: 1, y: 1 });
  });

  it('shares content lookups between the sub-query runs of an expander', async () => {
    const { run, content } = makeWorld();
    content.delayMs = 5;
    await run({ pipeline: 's1 >> split{num, neg}RRF', query: 'u v w', collection: 'docs' });
    expect(content.ids().sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('content fetches', () => {
  it('fetches each document once per run across concurrent branches (in-flight lookups shared)', async () => {
    const { run, content } = makeWorld();
    content.delayMs = 5;
    await run({ pipeline: 's1 >> {num, neg, num[again]}RRF', query: 'q', collection: 'docs' });
    expect(content.ids().sort()).toEqual(['a', 'b', 'c']);
  });

  it('shares fetches between branches and later stages, per view', async () => {
    const { run, content } = makeWorld();
    await run({
      pipeline: '{s1, s2}RRF >> num >> neg >> num@doubled',
      query: 'q',
      collection: 'docs',
    });
    const byView = (view: string) =>
      content.lookups
        .filter((l) => l.view === view)
        .map((l) => l.id)
        .sort();
    expect(byView('text')).toEqual(['a', 'b', 'c', 'd']);
    expect(byView('doubled')).toEqual(['a', 'b', 'c', 'd']);
    expect(content.lookups).toHaveLength(8);
  });

  it('does not share fetches between runs (the collection cache does that)', async () => {
    const { run, content } = makeWorld();
    await run({ pipeline: 's1 >> num', query: 'q', collection: 'docs' });
    await run({ pipeline: 's1 >> num', query: 'q', collection: 'docs' });
    expect(content.lookups).toHaveLength(6);
  });

  it('gives a bytes scorer the parts of a bytes view', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 's1 >> size@image', query: 'q', collection: 'docs' });
    expect(body.scores).toEqual({ a: 2, b: 2, c: 2 });
    const passages = services.requestsOf('size')[0]!.passages as Uint8Array[][];
    expect(passages[0]!.map((part) => [...part])).toEqual([[1], [2]]);
  });

  it('a rerank of nothing calls neither the content service nor the scorer', async () => {
    const world = makeWorld();
    world.services.add('search', 'empty', () => ({}));
    const body = await world.run({ pipeline: 'empty >> num', query: 'q', collection: 'docs' });
    expect(body.scores).toEqual({});
    expect(world.content.lookups).toHaveLength(0);
    expect(world.services.requestsOf('num')).toHaveLength(0);
  });
});

describe('%N per role', () => {
  it('search: limit=N in the request and a top-N cut of the result', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 'greedy%2', query: 'q' });
    expect(services.requestsOf('greedy')[0]!.limit).toBe(2);
    expect(body.scores).toEqual({ a: 5, b: 4 });
  });

  it('search without %N asks for the default limit (1000) and keeps everything', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 'greedy', query: 'q' });
    expect(services.requestsOf('greedy')[0]!.limit).toBe(1000);
    expect(Object.keys(body.scores as object)).toHaveLength(5);
  });

  it('rerank: a top-N cut of the rescored list; the scorer sees every candidate', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 's1 >> num%2', query: 'q', collection: 'docs' });
    expect(services.requestsOf('num')[0]!.passages).toHaveLength(3);
    expect(body.scores).toEqual({ a: 30, c: 20 });
  });

  it('merger: a top-N cut of the fused list, with limit sent to the fuse engine', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: '{s1, s2}ScoreFusion%2', query: 'q' });
    expect(services.requestsOf('ScoreFusion')[0]!.limit).toBe(2);
    expect(body.scores).toEqual({ c: 6, d: 4 });
  });

  it('expander: limit=N in the request and at most N sub-queries', async () => {
    const world = makeWorld();
    world.services.add('decompose_query', 'chatty', () => ['x', 'y', 'z']);
    const body = await world.run({ pipeline: 'chatty%2{echo}RRF', query: 'q' });
    expect(world.services.requestsOf('chatty')[0]!.limit).toBe(2);
    expect(world.services.requestsOf('echo').map((r) => r.query)).toEqual(['x', 'y']);
    expect(body.expanded_queries).toEqual(['x', 'y']);
  });

  it('cuts keep the smaller ids among ties at the boundary', async () => {
    const world = makeWorld();
    world.services.add('search', 'flat', () => ({ d: 1, b: 1, c: 1, a: 1 }));
    expect((await world.run({ pipeline: 'flat%2', query: 'q' })).scores).toEqual({ a: 1, b: 1 });
  });

  it('a top-level limit cuts the final result', async () => {
    const { run } = makeWorld();
    const body = await run({ pipeline: 's1', query: 'q', limit: 1 });
    expect(body.scores).toEqual({ a: 3 });
  });
});

describe('runtime_kwargs', () => {
  it('reach the engine of their stage for every role', async () => {
    const { run, services } = makeWorld();
    await run({
      pipeline: 'split[e]{s1[a], s2}RRF[f] >> num[r]',
      query: 'x y',
      collection: 'docs',
      runtime_kwargs: {
        e: { style: 'short' },
        a: { instruction: 'find' },
        s2: { subset: 'news' },
        f: { rrf_k: 0 },
        r: { prompt: 'judge' },
      },
    });
    expect(services.requestsOf('split')[0]).toMatchObject({ style: 'short', query: 'x y' });
    for (const request of services.requestsOf('s1')) expect(request.instruction).toBe('find');
    for (const request of services.requestsOf('s2')) expect(request.subset).toBe('news');
    expect(services.requestsOf('RRF')[0]).toMatchObject({ rrf_k: 0, branches: 2 });
    expect(services.requestsOf('num')[0]).toMatchObject({ prompt: 'judge', query: 'x y' });
  });

  it('a label defaults to the service name and reaches every stage with that label', async () => {
    const { run, services } = makeWorld();
    await run({ pipeline: '{s1, s1[other]}RRF', query: 'q', runtime_kwargs: { s1: { tag: 1 } } });
    expect(services.requestsOf('s1').map((r) => r.tag)).toEqual([1, undefined]);
  });

  it('a limit in runtime_kwargs sets the search limit; %N wins over it', async () => {
    const { run, services } = makeWorld();
    await run({ pipeline: 'greedy[g]', query: 'q', runtime_kwargs: { g: { limit: 2 } } });
    await run({ pipeline: 'greedy[g]%3', query: 'q', runtime_kwargs: { g: { limit: 2 } } });
    expect(services.requestsOf('greedy').map((r) => r.limit)).toEqual([2, 3]);
  });

  it('fusion parameters change the fused scores', async () => {
    const { run } = makeWorld();
    const body = await run({
      pipeline: '{s1, s2}RRF',
      query: 'q',
      runtime_kwargs: { RRF: { rrf_k: 0 } },
    });
    expect(body.scores).toEqual({ a: 1, b: 0.5, c: 1 / 3 + 1, d: 0.5 });
  });
});

describe('fusion through a pipeline (hand-computed)', () => {
  it('{s1, s2}RRF uses k = 60 and ranks from 1', async () => {
    const { run } = makeWorld();
    const body = await run({ pipeline: '{s1, s2}RRF', query: 'q' });
    const scores = body.scores as Record<string, number>;
    expect(scores.a).toBeCloseTo(rrf(1), 15);
    expect(scores.b).toBeCloseTo(rrf(2), 15);
    expect(scores.c).toBeCloseTo(rrf(3, 1), 15);
    expect(scores.d).toBeCloseTo(rrf(2), 15);
  });

  it('nested groups and sequences inside branches', async () => {
    const { run, services } = makeWorld();
    const body = await run({
      pipeline: '{s1 >> num%2, {s2, bm25-title}ScoreFusion}ScoreFusion',
      query: 'q',
      collection: 'docs',
    });
    expect(body.scores).toEqual({ a: 30, c: 25, d: 4, e: 1 });
    expect(services.requestsOf('ScoreFusion')).toHaveLength(2);
  });
});

describe('groups in rerank position', () => {
  it('X >> E{A}M reranks X for each sub-query', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 's1%2 >> split{num}RRF', query: 'u v', collection: 'docs' });
    expect(services.requestsOf('num').map((r) => r.query)).toEqual(['u', 'v']);
    for (const request of services.requestsOf('num'))
      expect(request.passages).toEqual(['30', '10']);
    expect(body.scores).toEqual({ a: 2 / 61, b: 2 / 62 });
    expect(body.expanded_queries).toEqual(['u', 'v']);
  });

  it('an expander with no sub-query leaves the original query', async () => {
    const { run, services } = makeWorld();
    const body = await run({ pipeline: 'none{echo}RRF', query: 'whole' });
    expect(services.requestsOf('echo').map((r) => r.query)).toEqual(['whole']);
    expect(body.expanded_queries).toEqual([]);
  });
});
