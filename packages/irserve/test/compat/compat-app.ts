import { afterAll, beforeAll } from 'vitest';
import type { App } from '../../src/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { testApp } from '../helpers/app.js';
import { COMPAT_ENGINES } from './engines.js';

export const DOCS = {
  d1: 'the cat sat on the mat',
  d2: 'dogs chase cats in the park',
  d3: 'stock markets fell sharply today',
};

/** The config of the compat tests: embedders, a Dense-like engine, scorers, model mappings. */
export const COMPAT_CONFIG = {
  services: [
    { name: 'hash', engine: 'HashEmbedder', max_wait_time: 0.02, batch_size: 64 },
    { name: 'dense', engine: 'TinyDense', config: { docs: DOCS }, max_wait_time: 0.005 },
    { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0.005 },
    { name: 'sparse', engine: 'CountSparse', max_wait_time: 0.005 },
    { name: 'broken', engine: 'BrokenEmbedder', max_wait_time: 0.005 },
    { name: 'bytesize', engine: 'ByteSizeScore', max_wait_time: 0.005 },
  ],
  pipeline_aliases: { cascade: 'overlap%3 >> dense%2' },
  compat: {
    embeddings: {
      'text-embedding-3-small': 'dense',
      'hash-query': { service: 'hash', kind: 'query' },
      matryoshka: { service: 'dense', matryoshka: true, description: 'truncatable' },
    },
    rerank: { 'rerank-v3.5': 'overlap', cascade: 'cascade', 'dense-rerank': 'dense' },
    sparse_embeddings: { splade: 'sparse' },
    tei: { embed: 'text-embedding-3-small', rerank: 'rerank-v3.5' },
  },
};

/** The compat test app, listening on loopback. */
export async function compatApp(apiKey?: string): Promise<{ app: App; base: string }> {
  const app = await testApp(COMPAT_CONFIG, {
    engines: [...TEST_ENGINES, ...COMPAT_ENGINES],
    ...(apiKey ? { apiKey } : {}),
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

/**
 * The compat test app of one test file: started before its tests, closed after them.
 *
 * @example
 * const server = compatAppOfFile();
 * it('answers', async () => expect((await fetch(`${server.base}/v1/models`)).status).toBe(200));
 */
export function compatAppOfFile(apiKey?: string): { readonly app: App; readonly base: string } {
  const started = {} as { app: App; base: string };
  beforeAll(async () => {
    Object.assign(started, await compatApp(apiKey));
  });
  afterAll(async () => {
    await started.app?.close();
  });
  return started;
}
