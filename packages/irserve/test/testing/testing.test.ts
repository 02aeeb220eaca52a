/**
 * `irserve/testing` as a plugin author uses it: a folder, a corpus and its collection, a tiny
 * model behind a stand-in server, and an app on a free port serving an engine over them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchRequest } from 'irserve/plugin';
import {
  AERO_DOCS,
  bagOfWords,
  get,
  post,
  startEmbeddingsStandIn,
  startStandIn,
  startTestApp,
  tempDir,
  writeCollection,
  writeSubsets,
  type EmbeddingsStandIn,
  type TempDir,
  type TestApp,
} from 'irserve/testing';

const DIM = 64;

/** An engine that asks an embeddings API for the query's vector and ranks AERO_DOCS by it. */
class TinyDense {
  readonly #url: string;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.#url = String(config.url);
  }

  async searchBatch(requests: SearchRequest[]) {
    const response = await fetch(`${this.#url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'bow', input: requests.map((r) => r.query) }),
    });
    const { data } = (await response.json()) as { data: { index: number; embedding: number[] }[] };
    return requests.map((request, i) => {
      const query = data.find((d) => d.index === i)!.embedding;
      const scores: Record<string, number> = {};
      for (const doc of AERO_DOCS) {
        const vector = bagOfWords(`${doc.title} ${doc.text}`, DIM);
        scores[doc.id] = query.reduce((sum, x, k) => sum + x * vector[k]!, 0);
      }
      return Object.fromEntries(
        Object.entries(scores)
          .sort((a, b) => b[1] - a[1])
          .slice(0, request.limit),
      );
    });
  }
}

describe('irserve/testing', () => {
  let dir: TempDir;
  let api: EmbeddingsStandIn;
  let served: TestApp;

  beforeAll(async () => {
    dir = await tempDir('irserve-testing-');
    api = await startEmbeddingsStandIn(DIM);
    const collection = await writeCollection(dir, 'aero', AERO_DOCS, ['title', 'text']);
    await writeSubsets(
      dir,
      AERO_DOCS.map((d) => d.id),
    );
    served = await startTestApp(
      {
        collections: [collection],
        services: [
          { name: 'tiny', engine: 'TinyDense', max_wait_time: 0, config: { url: api.url } },
          { name: 'bm25', engine: 'BM25', config: { collection: 'aero' } },
        ],
      },
      { engines: [TinyDense], dir: dir.path, listen: true },
    );
  });
  afterAll(async () => {
    await served?.close();
    await api?.close();
    await dir?.remove();
  });

  it('writes the corpus, the collection entry and the subset mapping in the folder', () => {
    expect(readFileSync(dir.join('corpus.jsonl'), 'utf8').split('\n')[0]).toBe(
      JSON.stringify(AERO_DOCS[0]),
    );
    expect(readFileSync(dir.join('subsets.tsv'), 'utf8').split('\n').slice(0, 2)).toEqual([
      'd1\todd',
      'd2\teven',
    ]);
  });

  it('serves the engine on a free port, through the stand-in model', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${served.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'tiny', query: 'jet engine thrust', limit: 2 }),
    });
    const body = (await response.json()) as { scores: Record<string, number> };
    expect(response.status).toBe(200);
    expect(Object.keys(body.scores)).toContain('d1');
    expect(api.calls.at(-1)).toMatchObject({ input: ['jet engine thrust'], model: 'bow' });
  });

  it('answers JSON requests through inject, and serves the collection', async () => {
    const search = await post(served.app, '/search', {
      service: 'bm25',
      query: 'propeller noise',
      limit: 1,
    });
    expect(search).toMatchObject({ status: 200, body: { scores: { d6: expect.any(Number) } } });
    const content = await post(served.app, '/content', { collection: 'aero', id: 'd3' });
    expect(content.body.text).toContain('supersonic shock wave');
    expect((await get(served.app, '/avail')).body.search).toEqual(['tiny', 'bm25']);
  });

  it('a stand-in records requests and answers what the test says', async () => {
    const tei = await startStandIn(({ path, body }) =>
      path === '/embed'
        ? { body: [[(body as { inputs: string[] }).inputs.length]] }
        : { status: 404, body: {} },
    );
    try {
      const ok = await fetch(`${tei.url}/embed`, { method: 'POST', body: '{"inputs":["a","b"]}' });
      expect(await ok.json()).toEqual([[2]]);
      expect((await fetch(`${tei.url}/other`, { method: 'POST' })).status).toBe(404);
      expect(tei.requests.map((r) => r.path)).toEqual(['/embed', '/other']);
    } finally {
      await tei.close();
    }
    api.failWith(503);
    const failed = await post(served.app, '/search', { service: 'tiny', query: 'x', limit: 1 });
    api.failWith(undefined);
    expect(failed.status).toBe(500);
  });

  it('writes files in new subfolders, and removes the folder', async () => {
    const other = await tempDir();
    const file = await other.write('img/a.png', new Uint8Array([1, 2]));
    expect(file).toBe(other.join('img', 'a.png'));
    expect([...readFileSync(file)]).toEqual([1, 2]);
    await other.remove();
    expect(existsSync(other.path)).toBe(false);
  });
});

it.each([
  ['## Testing an engine', 'plugin-example.test.ts'],
  ['### An engine without an app', 'engine-context-example.test.ts'],
])("docs/plugins.md's example under %s is %s", (heading, file) => {
  const docs = readFileSync(new URL('../../../../docs/plugins.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf(heading));
  const example = section.slice(section.indexOf('```ts\n') + 6, section.indexOf('```\n', 10));
  const test = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
  expect(test.split('\n').slice(1).join('\n').trim()).toBe(example.trim());
});
