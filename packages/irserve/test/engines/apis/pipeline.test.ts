/** Model-API engines inside real pipelines: BM25 over a tiny collection, then the API stages. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../src/app.js';
import { testApp } from '../../helpers/app.js';
import { post } from './app.js';
import { fakeApi, type FakeApi, type Recorded } from './fake-api.js';
import { chatAnswer, cohereReply, overlap } from './replies.js';

let dir: string;
let app: App;
let api: FakeApi;

const DOCS = [
  'neural ranking with transformers',
  'cooking pasta and neural networks',
  'ranking football clubs',
  'transformers for dense retrieval',
  'bread baking basics',
  'sparse retrieval with bm25 ranking',
];

/** One fake server for both APIs: rerank under /v1/rerank, chat under /v1/chat/completions. */
function route(request: Recorded) {
  if (request.path === '/v1/rerank') return cohereReply(request);
  return chatAnswer('```json\n["neural ranking", "dense retrieval"]\n```');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-model-apis-'));
  const lines = DOCS.map((text, i) => JSON.stringify({ id: `d${i}`, text }));
  await writeFile(join(dir, 'docs.jsonl'), lines.join('\n') + '\n');
  api = await fakeApi(route);
  const base_url = `${api.url}/v1`;
  app = await testApp(
    {
      services: [
        { name: 'bm25', engine: 'BM25', config: { collection: 'docs' }, max_wait_time: 0.001 },
        {
          name: 'rerank',
          engine: 'RerankAPI',
          config: { base_url, model: 'm' },
          max_wait_time: 0.001,
        },
        {
          name: 'llm',
          engine: 'LLMDecomposer',
          config: { base_url, model: 'm' },
          max_wait_time: 0.001,
        },
      ],
      collections: [
        {
          name: 'docs',
          default_view: 'text',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
        },
      ],
    },
    { cacheDir: join(dir, 'cache') },
  );
});

afterAll(async () => {
  await app?.close();
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('model-API engines in pipelines', () => {
  it('bm25 >> rerank: the API reranks BM25 results, scores stay with their documents', async () => {
    const query = 'neural ranking transformers';
    const { status, body } = await post(app, '/pipeline', {
      pipeline: 'bm25 >> rerank',
      collection: 'docs',
      query,
    });
    expect(status).toBe(200);
    expect(body.service).toBe('rerank');
    const rerankCalls = api.calls.filter((c) => c.path === '/v1/rerank');
    expect(rerankCalls).toHaveLength(1);
    const ids = Object.keys(body.scores);
    expect(ids.length).toBeGreaterThan(1);
    for (const id of ids)
      expect(body.scores[id], id).toBe(overlap(query, DOCS[Number(id.slice(1))]!));
  });

  it('llm{bm25}RRF: the LLM decomposes, BM25 searches each sub-query, RRF fuses', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: 'llm{bm25}RRF',
      collection: 'docs',
      query: 'how do neural models rank documents',
    });
    expect(status).toBe(200);
    expect(body.expanded_queries ?? body.queries).toEqual(['neural ranking', 'dense retrieval']);
    // d0 matches only the first sub-query, d3 only the second, d5 both (so it leads after RRF).
    expect(Object.keys(body.scores)).toEqual(expect.arrayContaining(['d0', 'd3', 'd5']));
    const top = Object.entries(body.scores as Record<string, number>).sort((a, b) => b[1] - a[1]);
    expect(top[0]![0]).toBe('d5');
    expect(Object.keys(body.scores)).not.toContain('d4');
  });
});
