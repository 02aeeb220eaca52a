/**
 * One bad item never hurts its batch: a poisoned batch is retried item by item, a malformed
 * result fails its item alone, and an engine-side check (a BM25 subset it has no mapping for)
 * rejects the item before the batch forms. Over HTTP, `/batch` and concurrent clients.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { FAULT_ENGINES, PoisonableSearch } from './fault-engines.js';

let app: App;
let dir: string;

const search = (body: Record<string, unknown>) =>
  app.http.inject({ method: 'POST', url: '/search', payload: body });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-isolation-'));
  const docs = ['wing lift', 'wing drag', 'boundary layer'].map((text, i) =>
    JSON.stringify({ id: `d${i}`, text }),
  );
  await writeFile(join(dir, 'docs.jsonl'), docs.join('\n') + '\n');
  const slow = { max_wait_time: 0.05, cache: -1 };
  app = await testApp(
    {
      services: [
        { name: 'poisonable', engine: 'PoisonableSearch', ...slow },
        { name: 'garbage', engine: 'GarbageSearch', ...slow },
        { name: 'bm25', engine: 'BM25', config: { collection: 'docs' }, ...slow },
      ],
      collections: [
        {
          name: 'docs',
          default_view: 'text',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
        },
      ],
    },
    { cacheDir: join(dir, 'cache'), engines: [...TEST_ENGINES, ...FAULT_ENGINES] },
  );
});

afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('per-item isolation', () => {
  it('a BM25 subset without a mapping fails that request alone, not its batch', async () => {
    const answers = await Promise.all([
      search({ service: 'bm25', query: 'wing' }),
      search({ service: 'bm25', query: 'wing', subset: 'en' }),
      search({ service: 'bm25', query: 'boundary' }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 400, 200]);
    expect(answers[1].json()).toMatchObject({ code: 'ERR_BAD_REQUEST' });
    expect(answers[1].json().error).toMatch(/subset: service "bm25" has no id_to_subset_mapping/);
  });

  it('the same through /batch: only the bad call fails', async () => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/batch',
      payload: {
        requests: [
          { endpoint: 'search', body: { service: 'bm25', query: 'lift' } },
          { endpoint: 'search', body: { service: 'bm25', query: 'lift', subset: 'x' } },
        ],
      },
    });
    const statuses = response.json().responses.map((r: { status: number }) => r.status);
    expect(statuses).toEqual([200, 400]);
  });

  it('a plugin that throws on a batch is retried one item at a time', async () => {
    PoisonableSearch.batchSizes = [];
    const answers = await Promise.all(
      ['a', 'poison', 'b', 'c'].map((query) => search({ service: 'poisonable', query })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 500, 200, 200]);
    expect(answers[1]!.json()).toMatchObject({ code: 'ERR_ENGINE' });
    expect(answers[0]!.json().scores).toEqual({ 'd-a': 1 });
    // One batch of 4, then each of the 4 alone.
    expect(PoisonableSearch.batchSizes).toEqual([4, 1, 1, 1, 1]);
  });

  it('a malformed result fails its item alone', async () => {
    const answers = await Promise.all(
      ['x', 'garbage', 'y'].map((query) => search({ service: 'garbage', query })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 500, 200]);
    expect(answers[1]!.json().error).toMatch(/service "garbage" returned a value of type string/);
  });
});

describe('RoutIR clients send null for absent fields', () => {
  it('"subset": null and "limit": null mean absent', async () => {
    const response = await search({ service: 'bm25', query: 'wing', subset: null, limit: null });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json().scores).length).toBeGreaterThan(0);
  });
});
