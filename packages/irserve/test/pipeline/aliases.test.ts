import { describe, expect, it } from 'vitest';
import { validatePipelineAliases } from '../../src/pipeline/aliases.js';
import { compilePlan } from '../../src/pipeline/compile.js';
import { parsePipeline } from '../../src/pipeline/parser.js';
import { makeWorld, rejection } from './world.js';

function configError(aliases: Record<string, string>, services: string[] = []): string {
  try {
    validatePipelineAliases(aliases, services);
  } catch (error) {
    expect((error as { code: string }).code).toBe('ERR_CONFIG');
    return (error as Error).message;
  }
  throw new Error('expected a config error');
}

describe('validatePipelineAliases (start-up)', () => {
  it('accepts aliases that use other aliases', () => {
    const table = validatePipelineAliases({ hybrid: '{bm25, dense}RRF%100', full: 'hybrid >> rr' });
    expect([...table.keys()]).toEqual(['hybrid', 'full']);
  });

  it('rejects a syntax error, naming the alias and the column', () => {
    expect(configError({ broken: '{a, b' })).toMatch(/"broken": pipeline syntax error at column 6/);
  });

  it('rejects cycles, naming the path', () => {
    expect(configError({ a: 'b >> x', b: '{a}RRF' })).toMatch(/cycle: a -> b -> a/);
    expect(configError({ self: 'self' })).toMatch(/cycle: self -> self/);
  });

  it('rejects a name that clashes with a service', () => {
    expect(configError({ bm25: 'x' }, ['bm25'])).toMatch(/"bm25": a service has the same name/);
  });

  it('rejects an alias used as a merger or expander', () => {
    expect(configError({ m: 'x', y: '{a}m' })).toMatch(/alias "m" cannot be a merger/);
    expect(configError({ m: 'x', y: 'm{a}RRF' })).toMatch(/alias "m" cannot be an expander/);
  });

  it('rejects names that are not DSL names, and reports every problem at once', () => {
    const message = configError({ 'my.alias': 'a', ok: '{' });
    expect(message).toMatch(/"my.alias": an alias name is a letter/);
    expect(message).toMatch(/"ok": pipeline syntax error/);
  });

  it('createPipelineRunner fails at start-up on a clash with a registered service', () => {
    expect(() => makeWorld({ aliases: { s1: 's2' } })).toThrow(/"s1": a service has the same name/);
  });
});

describe('expansion at plan time', () => {
  const expand = (source: string, aliases: Record<string, string>) =>
    compilePlan(parsePipeline(source), validatePipelineAliases(aliases)).canonical;

  it('replaces an alias by its body in the role of the call site', () => {
    const aliases = { hybrid: '{bm25, dense}RRF%100' };
    expect(expand('hybrid >> rr', aliases)).toBe('{bm25, dense}RRF%100 >> rr');
    expect(expand('x >> hybrid', aliases)).toBe('x >> {bm25, dense}RRF%100');
  });

  it('a call-site %N replaces the outermost limit (the last stage, or the merger)', () => {
    expect(expand('h%10', { h: '{a, b%5}RRF%100' })).toBe('{a, b%5}RRF%10');
    expect(expand('h%10', { h: 'a%50 >> r%20' })).toBe('a%50 >> r%10');
    expect(expand('outer%3', { inner: 'a >> r%9', outer: 'inner' })).toBe('a >> r%3');
  });

  it('a call-site @view goes to rerank stages without a view of their own', () => {
    expect(expand('a >> rr@title', { rr: 'r1 >> r2@body' })).toBe('a >> r1@title >> r2@body');
    expect(() => expand('h@title', { h: '{a, b}RRF' })).toThrow(/no rerank stage/);
  });

  it('a pipeline alias takes no [label], and cannot be a merger at request time', () => {
    expect(() => expand('h[x]', { h: 'a' })).toThrow(/takes no \[x\] label/);
    expect(() => expand('{a}h', { h: 'a' })).toThrow(/cannot be a merger/);
  });

  it('runs through the runner and is listed by aliases()', async () => {
    const { runner, run, services } = makeWorld({ aliases: { hybrid: '{s1, s2}RRF%100' } });
    expect(runner.aliases()).toEqual({ hybrid: '{s1, s2}RRF%100' });
    const body = await run({ pipeline: 'hybrid%2 >> num', query: 'q', collection: 'docs' });
    expect(body.scores).toEqual({ c: 20, a: 30 });
    expect(services.requestsOf('RRF')[0]!.limit).toBe(2);
  });

  it('runtime_kwargs keyed by an alias name explain where they go', async () => {
    const { run } = makeWorld({ aliases: { hybrid: '{s1, s2}RRF' } });
    const error = await rejection(
      run({ pipeline: 'hybrid', query: 'q', runtime_kwargs: { hybrid: { rrf_k: 1 } } }),
    );
    expect(error.message).toMatch(
      /'hybrid' is a pipeline alias; use the labels of the stages inside it\); labels: s1, s2, RRF/,
    );
  });
});
