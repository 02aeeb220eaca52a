/** `/avail`'s search_collections: the collection each search service indexes. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

let app: App;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-avail-'));
  for (const name of ['a', 'b'])
    await writeFile(join(dir, `${name}.jsonl`), `{"id": "1", "text": "${name} text"}\n`);
  const collection = (name: string) => ({ name, doc_path: `${name}.jsonl`, content_field: 'text' });
  app = await testApp(
    {
      collections: [collection('a'), collection('b')],
      services: [
        { name: 'bm25-a', engine: 'BM25', config: { collection: 'a' } },
        { name: 'bm25-b', engine: 'BM25', config: { collection: 'b' } },
        { name: 'const', engine: 'ConstSearch' },
      ],
    },
    { configDir: dir, cacheDir: join(dir, 'cache') },
  );
});
afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

describe('GET /avail search_collections', () => {
  it('maps each search service to the collection its config names', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.search_collections).toEqual({ 'bm25-a': 'a', 'bm25-b': 'b' });
  });
});
