// The example of docs/plugins.md, "Testing an engine": keep the two the same.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SearchRequest } from 'irserve/plugin';
import {
  AERO_DOCS,
  post,
  startTestApp,
  tempDir,
  writeCollection,
  type TempDir,
  type TestApp,
} from 'irserve/testing';

/** The engine under test: documents ranked by how many query words they contain. */
class WordCount {
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(({ query }) => {
      const words = query.toLowerCase().split(/\s+/);
      const scores: Record<string, number> = {};
      for (const doc of AERO_DOCS) {
        const hits = words.filter((w) => doc.text.includes(w)).length;
        if (hits > 0) scores[doc.id] = hits;
      }
      return scores;
    });
  }
}

let dir: TempDir;
let served: TestApp;

beforeAll(async () => {
  dir = await tempDir('word-count-');
  const collection = await writeCollection(dir, 'aero', AERO_DOCS, ['title', 'text']);
  served = await startTestApp(
    {
      collections: [collection],
      services: [{ name: 'words', engine: 'WordCount', max_wait_time: 0 }],
    },
    { engines: [WordCount], dir: dir.path, listen: true },
  );
});
afterAll(async () => {
  await served.close();
  await dir.remove();
});

it('ranks by words in common, through inject and over a socket', async () => {
  const { status, body } = await post(served.app, '/search', {
    service: 'words',
    query: 'boundary layer flow',
  });
  expect(status).toBe(200);
  expect(body.scores).toEqual({ d2: 2, d5: 3 });
  const overHttp = await fetch(`${served.url}/pipeline`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pipeline: 'words%1', collection: 'aero', query: 'boundary layer flow' }),
  });
  expect(((await overHttp.json()) as { scores: object }).scores).toEqual({ d5: 3 });
});
