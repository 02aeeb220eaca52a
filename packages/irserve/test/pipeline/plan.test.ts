import { describe, expect, it } from 'vitest';
import { validatePipelineAliases } from '../../src/pipeline/aliases.js';
import { compilePlan } from '../../src/pipeline/compile.js';
import type { PlanSeq, PlanStage } from '../../src/pipeline/plan.js';
import { parsePipeline } from '../../src/pipeline/parser.js';
import { makeWorld, rejection } from './world.js';

/** `name:role` of every call in plan order (expander before branches, merger after). */
function roles(seq: PlanSeq): string[] {
  const out: string[] = [];
  const visit = (stage: PlanStage) => {
    if (stage.kind === 'call') {
      out.push(`${stage.name}:${stage.role}`);
      return;
    }
    if (stage.expander) out.push(`${stage.expander.name}:${stage.expander.role}`);
    for (const branch of stage.branches) branch.stages.forEach(visit);
    out.push(`${stage.merger.name}:${stage.merger.role}`);
  };
  seq.stages.forEach(visit);
  return out;
}

const plan = (source: string, aliases: Record<string, string> = {}) =>
  compilePlan(parsePipeline(source), validatePipelineAliases(aliases));

describe('roles', () => {
  it.each([
    ['a', ['a:search']],
    ['a >> b >> c', ['a:search', 'b:rerank', 'c:rerank']],
    ['{a, b >> c}M', ['a:search', 'b:search', 'c:rerank', 'M:merge']],
    ['E{a}M >> r', ['E:expand', 'a:search', 'M:merge', 'r:rerank']],
    ['x >> {a, b}M', ['x:search', 'a:rerank', 'b:rerank', 'M:merge']],
    ['x >> E{a >> b}M', ['x:search', 'E:expand', 'a:rerank', 'b:rerank', 'M:merge']],
    ['{{a, b}M, c}N', ['a:search', 'b:search', 'M:merge', 'c:search', 'N:merge']],
  ])('%s', (source, expected) => {
    expect(roles(plan(source).root)).toEqual(expected);
  });

  it('collects stage labels: the [alias], else the service name', () => {
    expect([...plan('{a[x], b}M[m] >> c').labels].sort()).toEqual(['b', 'c', 'm', 'x']);
  });
});

describe('planning errors (before anything runs)', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    [
      'nosuch%10 >> num',
      {},
      'ERR_SERVICE_NOT_FOUND',
      /stage 'nosuch': no search service is named 'nosuch'/,
    ],
    [
      's1 >> s2',
      {},
      'ERR_PIPELINE_PLAN',
      /'s2' is a search service, but a rerank stage needs a score service/,
    ],
    [
      '{s1, s2}num',
      {},
      'ERR_PIPELINE_PLAN',
      /'num' is a score service, but a merge stage needs a fuse service/,
    ],
    [
      'RRF{s1}RRF',
      {},
      'ERR_PIPELINE_PLAN',
      /'RRF' is a fuse service, but an expand stage needs a decompose_query/,
    ],
    [
      'num',
      {},
      'ERR_PIPELINE_PLAN',
      /'num' is a score service, but a search stage needs a search service/,
    ],
    [
      's1 >> num',
      {},
      'ERR_PIPELINE_PLAN',
      /stage 'num' reranks documents and needs the request's `collection` field/,
    ],
    ['s1 >> num', { collection: 'nope' }, 'ERR_COLLECTION_NOT_FOUND', /unknown collection 'nope'/],
    [
      's1 >> num@nope',
      { collection: 'docs' },
      'ERR_COLLECTION_NOT_FOUND',
      /no view 'nope' \(views: text, doubled, image\)/,
    ],
    [
      's1 >> num@image',
      { collection: 'docs' },
      'ERR_PIPELINE_PLAN',
      /view 'image' of collection 'docs' is bytes, but score service 'num' takes text/,
    ],
    [
      's1 >> size',
      { collection: 'docs' },
      'ERR_PIPELINE_PLAN',
      /view 'text' .* is text, but score service 'size' takes bytes/,
    ],
    ['s1@text', {}, 'ERR_PIPELINE_PLAN', /@text applies to rerank stages only/],
    ['{s1}RRF@v', {}, 'ERR_PIPELINE_PLAN', /merger 'RRF': @v applies to rerank stages only/],
    [
      's1',
      { runtime_kwargs: { zzz: { limit: 2 } } },
      'ERR_PIPELINE_PLAN',
      /no stage is labelled 'zzz'; labels: s1/,
    ],
    [
      's1[a]',
      { runtime_kwargs: { s1: {} } },
      'ERR_PIPELINE_PLAN',
      /no stage is labelled 's1'; labels: a/,
    ],
    [
      's1 >> num',
      { collection: 'docs', runtime_kwargs: { num: { view: 'x' } } },
      'ERR_PIPELINE_PLAN',
      /'view' is set by the pipeline itself; write @view/,
    ],
    [
      's1',
      { runtime_kwargs: { s1: { query: 'x' } } },
      'ERR_PIPELINE_PLAN',
      /runtime_kwargs.s1.query/,
    ],
    ['{s1}RRF', { runtime_kwargs: { RRF: { rankings: [] } } }, 'ERR_PIPELINE_PLAN', /rankings/],
    [
      's1',
      { runtime_kwargs: { s1: { limit: -1 } } },
      'ERR_PIPELINE_PLAN',
      /limit: must be a positive integer/,
    ],
  ];
  it.each(cases)('%s %j', async (pipeline, extra, code, message) => {
    const { run, services } = makeWorld();
    const error = await rejection(run({ pipeline, query: 'q', ...extra }));
    expect(error.code).toBe(code);
    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(message);
    expect(services.calls).toHaveLength(0);
  });

  it('names the service and the role in the details', async () => {
    const { run } = makeWorld();
    const error = await rejection(run({ pipeline: '{s1}nosuch', query: 'q' }));
    expect(error.details).toEqual({ service: 'nosuch', role: 'fuse', stage: 'nosuch' });
  });

  it('refuses a search limit above max_limit', async () => {
    const { run } = makeWorld({ maxLimit: 100 });
    const error = await rejection(run({ pipeline: 's1%101', query: 'q' }));
    expect(error.message).toMatch(/limit 101 is above max_limit \(100\)/);
    await expect(run({ pipeline: 's1%100', query: 'q' })).resolves.toBeDefined();
  });

  it('skips the view kind check for a collection whose views are not known yet (remote)', async () => {
    const world = makeWorld();
    const original = world.content.get.bind(world.content);
    world.content.get = (name) => ({ ...original(name), viewKinds: {} });
    const body = await world.run({ pipeline: 's1 >> num', query: 'q', collection: 'docs' });
    expect(body.scores).toEqual({ a: 30, b: 10, c: 20 });
  });
});
