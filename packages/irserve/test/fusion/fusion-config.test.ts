/**
 * Fusion parameters in a service's config: defaults for the requests that send none, the way
 * `irserve tune` turns learned weights into a pipeline alias.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Scores } from '../../src/engines/contract.js';
import { RRF, ScoreFusion, WeightedRRF } from '../../src/engines/fusion/index.js';
import { testApp } from '../helpers/app.js';

const A: Scores = { a: 4, b: 2, c: 1 };
const B: Scores = { c: 9, a: 3, d: 3 };
const request = (extra: Record<string, unknown> = {}) =>
  ({ query: 'q', rankings: [A, B], ...extra }) as never;

describe('fusion defaults from the config', () => {
  it('WeightedRRF and RRF take weights and rrf_k from the config; a request overrides them', () => {
    const configured = new WeightedRRF({ config: { weights: [2, 0.5], rrf_k: 10 } });
    const explicit = new WeightedRRF().fuse(request({ weights: [2, 0.5], rrf_k: 10 }));
    expect(configured.fuse(request())).toEqual(explicit);
    expect(configured.fuse(request({ weights: [1, 1], rrf_k: 60 }))).toEqual(
      new RRF().fuse(request()),
    );
    expect(new RRF({ config: { rrf_k: 10 } }).fuse(request())).toEqual(
      new RRF().fuse(request({ rrf_k: 10 })),
    );
  });

  it('ScoreFusion weighs raw scores (weights from the request or the config)', () => {
    expect(new ScoreFusion().fuse(request())).toEqual({ a: 7, b: 2, c: 10, d: 3 });
    const weighted = { a: 4 * 0.5 + 3 * 2, b: 2 * 0.5, c: 0.5 + 9 * 2, d: 3 * 2 };
    expect(new ScoreFusion().fuse(request({ weights: [0.5, 2] }))).toEqual(weighted);
    expect(new ScoreFusion({ config: { weights: [0.5, 2] } }).fuse(request())).toEqual(weighted);
    expect(() => new ScoreFusion().fuse(request({ weights: [1] }))).toThrow(
      /weights: has 1 entries for 2 rankings/,
    );
  });
});

describe('a configured fusion service in a pipeline alias', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('fuses with its configured weights', async () => {
    app = await testApp({
      services: [
        { name: 'first', engine: 'ConstSearch', config: { start: 0 } },
        { name: 'second', engine: 'ConstSearch', config: { start: 5 } },
        { name: 'tuned', engine: 'WeightedRRF', config: { weights: [0, 1], rrf_k: 20 } },
      ],
      pipeline_aliases: { best: '{first, second}tuned%3' },
    });
    const viaAlias = await app.core.pipelines.run({ pipeline: 'best', query: 'q' });
    const viaKwargs = await app.core.pipelines.run({
      pipeline: '{first, second}WeightedRRF%3',
      query: 'q',
      runtime_kwargs: { WeightedRRF: { weights: [0, 1], rrf_k: 20 } },
    });
    expect(viaAlias.scores).toEqual(viaKwargs.scores);
    // Only the second ranking counts: its top three (doc5..doc7).
    expect(Object.keys(viaAlias.scores as Scores).sort()).toEqual(['doc5', 'doc6', 'doc7']);
  });

  it('refuses bad settings at start, naming them', async () => {
    const start = (config: Record<string, unknown>) =>
      testApp({ services: [{ name: 'f', engine: 'WeightedRRF', config }] });
    await expect(start({ weights: [1, -2] })).rejects.toThrow(/config\.weights/);
    await expect(start({ weight: [1] })).rejects.toThrow(
      /config\.weight: unknown key \(did you mean "weights"\?\)/,
    );
    await expect(
      testApp({ services: [{ name: 'b', engine: 'Borda', config: { rrf_k: 1 } }] }),
    ).rejects.toThrow(/config\.rrf_k: unknown key/);
  });
});
