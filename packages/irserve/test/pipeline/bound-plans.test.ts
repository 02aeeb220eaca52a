import { describe, expect, it } from 'vitest';
import type { CollectionCatalog } from '../../src/collections/types.js';
import { validatePipelineAliases } from '../../src/pipeline/aliases.js';
import { BoundPlans } from '../../src/pipeline/bound-plans.js';
import { PlanCache } from '../../src/pipeline/plan-cache.js';
import { makeContent, makeServices, makeWorld, rejection } from './world.js';

function setup(collections: CollectionCatalog = makeContent()) {
  const services = makeServices();
  const plans = new PlanCache(validatePipelineAliases({}, services.allNames()));
  const bound = new BoundPlans({ services, collections });
  return { plans, bound };
}

describe('BoundPlans', () => {
  it('binds a plan once per collection and hands the same bound pipeline back', () => {
    const { plans, bound } = setup();
    const plan = plans.get('{s1, s2}RRF%10 >> num');
    const first = bound.bind(plan, { collection: 'docs' });
    expect(first.reusable).toBe(true);
    expect(bound.bind(plan, { collection: 'docs' })).toBe(first);
    const search = plans.get('{s1, s2}RRF%10');
    const none = bound.bind(search, {});
    expect(bound.bind(search, {})).toBe(none);
    expect(bound.bind(search, { collection: 'docs' })).not.toBe(none);
  });

  it('binds afresh a request with runtime_kwargs, and keeps none of them', () => {
    const { plans, bound } = setup();
    const plan = plans.get('s1%5');
    const withKwargs = bound.bind(plan, { runtime_kwargs: { s1: { lang: 'en' } } });
    expect(withKwargs.reusable).toBe(false);
    expect(withKwargs.root.stages[0]).toMatchObject({ kind: 'search', fields: { lang: 'en' } });
    expect(bound.bind(plan, { runtime_kwargs: { s1: { lang: 'en' } } })).not.toBe(withKwargs);
    // The plain request is not handed the kwargs of an earlier one.
    expect(bound.bind(plan, {}).root.stages[0]).toMatchObject({ fields: {} });
  });

  it('keeps nothing for a collection the catalog does not have (no growth on hostile names)', () => {
    const { plans, bound } = setup();
    const plan = plans.get('s1');
    const once = bound.bind(plan, { collection: 'no-such-collection' });
    expect(bound.bind(plan, { collection: 'no-such-collection' })).not.toBe(once);
  });

  it('keeps nothing that took a view unchecked (a remote collection whose views are unknown)', () => {
    const remote: CollectionCatalog = {
      has: () => true,
      names: () => ['far'],
      get: () => ({
        name: 'far',
        defaultView: 'text',
        viewKinds: {},
        view: () => undefined as never,
      }),
    };
    const { plans, bound } = setup(remote);
    const plan = plans.get('s1 >> num');
    const once = bound.bind(plan, { collection: 'far' });
    expect(once.reusable).toBe(false);
    expect(bound.bind(plan, { collection: 'far' })).not.toBe(once);
  });

  it('keeps no failure: a request that cannot bind fails the same way every time', () => {
    const { plans, bound } = setup();
    const plan = plans.get('s1 >> num');
    for (let i = 0; i < 2; i++)
      expect(() => bound.bind(plan, {})).toThrow(/needs the request's `collection` field/);
  });
});

describe('the runner with kept bound pipelines', () => {
  it('answers repeated and interleaved requests as it answers fresh ones', async () => {
    const { run } = makeWorld();
    const plain = { pipeline: '{s1, s2}RRF', query: 'q' };
    const first = await run(plain);
    const reranked = await run({ pipeline: '{s1, s2}RRF >> num', query: 'q', collection: 'docs' });
    const kwargs = await run({ ...plain, runtime_kwargs: { s1: { limit: 1 } } });
    expect(await run(plain)).toMatchObject({ scores: first.scores, service: 'RRF' });
    expect(reranked.service).toBe('num');
    expect(Object.keys(kwargs.scores as object)).toHaveLength(3);
    const error = await rejection(run({ pipeline: '{s1, s2}RRF >> num', query: 'q' }));
    expect(error.code).toBe('ERR_PIPELINE_PLAN');
  });
});
