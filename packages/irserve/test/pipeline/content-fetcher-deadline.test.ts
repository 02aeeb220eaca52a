/**
 * A rerank stage's passage lookups are bounded by the request's deadline and signal: a
 * collection whose lookups hang (an imported collection on a stalled instance) fails the request
 * with ERR_TIMEOUT at its deadline instead of holding it open.
 */
import { describe, expect, it } from 'vitest';
import type { ContentResult, ContentService } from '../../src/collections/types.js';
import { IrserveError } from '../../src/errors.js';
import type { BoundRerank } from '../../src/pipeline/bound.js';
import { ContentFetcher } from '../../src/pipeline/content-fetcher.js';

const stage = {
  label: 'rerank',
  view: 'text',
  service: { name: 'rerank', inputKind: 'text' },
} as unknown as BoundRerank;

/** A collection whose lookups answer after `delayMs` (never, when undefined). */
function slowContent(delayMs?: number): ContentService {
  return {
    lookup: ({ collection, id, view }) =>
      new Promise<ContentResult>((resolve) => {
        if (delayMs === undefined) return;
        setTimeout(
          () =>
            resolve({
              collection,
              id,
              view: view ?? 'text',
              kind: 'text',
              document: { text: `text of ${id}` },
              cached: false,
            } as ContentResult),
          delayMs,
        );
      }),
  } as ContentService;
}

describe('ContentFetcher deadlines', () => {
  it('fails with ERR_TIMEOUT naming the stage when the deadline passes', async () => {
    const fetcher = new ContentFetcher(slowContent(), 'docs', { deadline: Date.now() + 50 });
    const started = performance.now();
    const failure = await fetcher.passages(stage, ['a', 'b']).catch((error: unknown) => error);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(failure).toBeInstanceOf(IrserveError);
    expect((failure as IrserveError).code).toBe('ERR_TIMEOUT');
    expect((failure as IrserveError).message).toMatch(/stage 'rerank'.*collection 'docs'/);
  });

  it('stops waiting when the client goes away', async () => {
    const controller = new AbortController();
    const fetcher = new ContentFetcher(slowContent(), 'docs', { signal: controller.signal });
    const pending = fetcher.passages(stage, ['a']).catch((error: unknown) => error);
    controller.abort(new IrserveError('ERR_CLIENT_CLOSED', 'the client closed the connection'));
    expect(((await pending) as IrserveError).code).toBe('ERR_CLIENT_CLOSED');
  });

  it('answers as before when lookups finish in time', async () => {
    const fetcher = new ContentFetcher(slowContent(5), 'docs', { deadline: Date.now() + 5_000 });
    expect(await fetcher.passages(stage, ['a', 'b'])).toEqual(['text of a', 'text of b']);
  });
});
