/**
 * A small world for pipeline tests: constant search engines, scorers that read the passage,
 * real fusion rules, a splitting decomposer, and one collection with a text and a bytes view.
 */
import { RRF, ScoreFusion } from '../../src/engines/fusion/index.js';
import type { Scores } from '../../src/engines/contract.js';
import { createPipelineRunner } from '../../src/pipeline/index.js';
import { FakeContent, FakeServices, silentLogger, textDocs } from './fakes.js';

/** A search handler returning `scores`, cut to the request's limit like a real engine. */
export function constant(scores: Scores) {
  return ({ limit }: { limit: number }) =>
    Object.fromEntries(
      Object.entries(scores)
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit),
    );
}

export const TEXTS = {
  a: '30',
  b: '10',
  c: '20',
  d: '40',
  e: '5',
  zzz: '1',
  aaa: '2',
  mmm: '3',
} as const;

export function makeServices(): FakeServices {
  return (
    new FakeServices()
      .add('search', 's1', constant({ a: 3, b: 2, c: 1 }))
      .add('search', 's2', constant({ c: 5, d: 4 }))
      .add('search', 'bm25-title', constant({ e: 1 }))
      .add('search', 'const_far', constant({ a: 1, ghost: 0.5, phantom: 0.25 }))
      // Returns more than it is asked for, to show the pipeline cuts search results itself.
      .add('search', 'greedy', () => ({ a: 5, b: 4, c: 3, d: 2, e: 1 }))
      .add('search', 'zyx', constant({ zzz: 3, mmm: 2, aaa: 1 }))
      .add('search', 'echo', ({ query }) => ({ [`q:${query}`]: 1 }))
      // Scores a passage by the number written in it.
      .add('score', 'num', ({ passages }) => passages.map((p) => Number(p)))
      .add('score', 'neg', ({ passages }) => passages.map((p) => -Number(p)))
      .add(
        'score',
        'size',
        ({ passages }) => passages.map((p) => (Array.isArray(p) ? p.length : -1)),
        {
          inputKind: 'bytes',
        },
      )
      .add('fuse', 'RRF', (request) => new RRF().fuse(request))
      .add('fuse', 'ScoreFusion', (request) => new ScoreFusion().fuse(request))
      .add('decompose_query', 'split', ({ query, limit }) =>
        query.split(/\s+/).slice(0, limit ?? 100),
      )
      .add('decompose_query', 'none', () => [])
  );
}

export function makeContent(): FakeContent {
  return new FakeContent({
    docs: {
      defaultView: 'text',
      views: {
        text: { kind: 'text', docs: textDocs(TEXTS) },
        doubled: {
          kind: 'text',
          docs: textDocs(
            Object.fromEntries(Object.entries(TEXTS).map(([id, t]) => [id, String(2 * Number(t))])),
          ),
        },
        image: {
          kind: 'bytes',
          docs: Object.keys(TEXTS).map((id) => ({
            id,
            parts: [
              { data: new Uint8Array([1]), mime: 'image/png' },
              { data: new Uint8Array([2]), mime: 'image/png' },
            ],
          })),
        },
      },
    },
  });
}

export interface WorldOptions {
  aliases?: Record<string, string>;
  cache?: { size: number; ttl: number };
  maxLimit?: number;
}

export function makeWorld(options: WorldOptions = {}) {
  const services = makeServices();
  const content = makeContent();
  const runner = createPipelineRunner({
    services,
    content,
    collections: content,
    logger: silentLogger(),
    aliases: options.aliases ?? {},
    cache: options.cache ?? { size: -1, ttl: 600 },
    ...(options.maxLimit !== undefined ? { maxLimit: options.maxLimit } : {}),
  });
  const run = (body: Record<string, unknown>) => runner.run(body);
  return { services, content, runner, run };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<{
  code: string;
  message: string;
  httpStatus: number;
  details?: Record<string, unknown>;
}> {
  try {
    await promise;
  } catch (error) {
    return error as never;
  }
  throw new Error('expected a rejection');
}
