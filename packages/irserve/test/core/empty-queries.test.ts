/**
 * Issue 39, item 6: one behaviour for empty queries. A search whose query is empty or blank
 * finds nothing (200, `scores: {}`) on every engine, through every route; a query of stop
 * words only finds nothing on BM25; every embedding route refuses an empty or blank text,
 * naming it (400; TEI's route 422, as TEI does). (The extras' engines are checked in their own packages' tests.)
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { COMPAT_CONFIG } from '../compat/compat-app.js';
import { COMPAT_ENGINES } from '../compat/engines.js';

const BLANK = ['', '   ', '\n\t '];

describe('empty queries (issue 39, item 6)', () => {
  let app: App;
  const post = async (url: string, payload: unknown) => {
    const reply = await app.http.inject({ method: 'POST', url, payload: payload as object });
    return { status: reply.statusCode, body: reply.json() };
  };

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-empty-'));
    const docs = [
      { id: '358', text: 'the wing of the plane' },
      { id: '12', text: 'a boundary layer' },
    ];
    await writeFile(join(dir, 'c.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    app = await testApp(
      {
        ...COMPAT_CONFIG,
        collections: [{ name: 'c', doc_path: join(dir, 'c.jsonl'), content_field: 'text' }],
        services: [
          ...COMPAT_CONFIG.services,
          { name: 'bm25', engine: 'BM25', config: { collection: 'c' }, max_wait_time: 0.001 },
        ],
      },
      { engines: [...TEST_ENGINES, ...COMPAT_ENGINES], cacheDir: join(dir, 'cache') },
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each(BLANK)('a search for %j finds nothing: 200 and {} (search, pipeline)', async (query) => {
    for (const service of ['bm25', 'dense']) {
      const search = await post('/search', { service, query, limit: 5 });
      expect(search).toMatchObject({ status: 200, body: { scores: {} } });
      const pipeline = await post('/pipeline', { pipeline: `${service}%5`, query });
      expect(pipeline).toMatchObject({ status: 200, body: { scores: {} } });
    }
  });

  it('a query of stop words only finds nothing on BM25', async () => {
    const reply = await post('/search', { service: 'bm25', query: 'the of a', limit: 5 });
    expect(reply).toMatchObject({ status: 200, body: { scores: {} } });
    // ...and a real query does find (the collection is not empty).
    const found = await post('/search', { service: 'bm25', query: 'the wing', limit: 5 });
    expect(Object.keys(found.body.scores)).toEqual(['358']);
  });

  it.each(BLANK)('every embedding route refuses %j naming the input', async (text) => {
    const embed = await post('/embed', { service: 'hash', input: [text] });
    expect(embed.status).toBe(400);
    expect(embed.body.error).toMatch(/input\[0\]: is empty or blank: there is nothing to embed/);
    const openai = await post('/v1/embeddings', { model: 'hash-query', input: text });
    expect(openai.status).toBe(400);
    expect(openai.body.error.message).toMatch(/is empty or blank: there is nothing to embed/);
    // TEI answers its validation errors with 422, in its own shape.
    const tei = await post('/embed', { inputs: ['fine', text] });
    expect(tei.status).toBe(422);
    expect(JSON.stringify(tei.body)).toMatch(/is empty or blank: there is nothing to embed/);
  });
});
