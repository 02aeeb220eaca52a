import { describe, expect, it } from 'vitest';
import { createPipelineRunner } from '../../src/pipeline/runner.js';
import { createPipelines } from '../../src/pipeline/lazy-runner.js';
import { silentLogger } from './fakes.js';
import { makeContent, makeServices, rejection } from './world.js';

function deps(aliases: Record<string, string> = {}) {
  const content = makeContent();
  return {
    services: makeServices(),
    content,
    collections: content,
    logger: silentLogger(),
    aliases,
    cache: { size: -1, ttl: 600 },
  };
}

describe('createPipelines (the runner loaded on first use)', () => {
  it('answers as the runner does, before and after the runner is loaded', async () => {
    const body = { pipeline: '{s1, s2}RRF%2', query: 'q', limit: 2 };
    const eager = await createPipelineRunner(deps()).run(body);
    const lazy = await createPipelines(deps());
    expect(lazy.aliases()).toEqual({});
    const [first, second] = await Promise.all([lazy.run(body), lazy.run(body)]);
    const third = await lazy.run(body);
    for (const result of [first, second, third])
      expect({ ...result, timestamp: 0 }).toEqual({ ...eager, timestamp: 0 });
  });

  it('reranks inline passages through the loaded runner', async () => {
    const lazy = await createPipelines(deps());
    const eager = createPipelineRunner(deps());
    expect(await lazy.rerank('num', 'q', ['1', '3', '2'])).toEqual(
      await eager.rerank('num', 'q', ['1', '3', '2']),
    );
  });

  it('a bad request is the same error as from the runner', async () => {
    const lazy = await createPipelines(deps());
    const error = await rejection(lazy.run({ pipeline: '{s1', query: 'q' }));
    expect(error.code).toBe('ERR_PIPELINE_SYNTAX');
  });

  it('checks aliases at start-up: a bad alias fails the creation', async () => {
    await expect(createPipelines(deps({ s1: 's2' }))).rejects.toThrow(
      /"s1": a service has the same name/,
    );
    const withAlias = await createPipelines(deps({ hybrid: '{s1, s2}RRF' }));
    expect(withAlias.aliases()).toEqual({ hybrid: '{s1, s2}RRF' });
  });
});
