/**
 * examples/integrations/{orama,minisearch}: third-party search libraries as file_imports plugins
 * over the bundled Cranfield collection, loaded from their config files as a user would, and
 * judged on Cranfield's relevance judgements next to the built-in BM25.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQrels, parseQueries, type Query } from '../../src/eval/files.js';
import { evaluate, type Qrels } from '../../src/eval/metrics.js';
import { CRANFIELD, openExample, service, type ExampleApp } from './example-app.js';

const SLABS = 'what problems of heat conduction in composite slabs have been solved so far .';

async function judged(): Promise<{ queries: Query[]; qrels: Qrels }> {
  const queries = parseQueries(await readFile(join(CRANFIELD, 'queries.jsonl'), 'utf8'));
  const qrels = parseQrels(await readFile(join(CRANFIELD, 'qrels.tsv'), 'utf8'));
  return { queries, qrels };
}

/** nDCG@10 of one service over every judged query, each asked through POST /search. */
async function ndcgAt10(example: ExampleApp, name: string, queries: Query[], qrels: Qrels) {
  const answers = await Promise.all(
    queries.map((q) => example.post('/search', { service: name, query: q.text, limit: 100 })),
  );
  const run = new Map(queries.map((q, i) => [q.id, answers[i]!.body.scores as object]));
  return evaluate(run as never, qrels).mean['nDCG@10']!;
}

const CASES = [
  { example: 'integrations/orama', name: 'orama', engine: 'OramaSearch' },
  { example: 'integrations/minisearch', name: 'minisearch', engine: 'MiniSearchSearch' },
] as const;

describe.each(CASES)('examples/$example', ({ example, name }) => {
  let app: ExampleApp;
  beforeAll(async () => {
    app = await openExample(example);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('finds the judged documents of a Cranfield query in its top 10, as BM25 does', async () => {
    const { status, body } = await app.post('/search', { service: name, query: SLABS, limit: 10 });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores);
    expect(ids.length).toBe(10);
    // Documents 5 and 399 are judged relevant to query 3 and both BM25 and the example rank them.
    expect(ids).toEqual(expect.arrayContaining(['5', '399']));
  });

  it('is close to BM25 on all 225 judged queries (nDCG@10)', async () => {
    const { queries, qrels } = await judged();
    const engine = await ndcgAt10(app, name, queries, qrels);
    const bm25 = await ndcgAt10(app, 'bm25', queries, qrels);
    expect(bm25).toBeGreaterThan(0.34);
    expect(engine).toBeGreaterThan(0.75 * bm25);
  });

  it('honours limit', async () => {
    const { body } = await app.post('/search', {
      service: name,
      query: 'boundary layer',
      limit: 3,
    });
    expect(Object.keys(body.scores)).toHaveLength(3);
  });

  it(`runs in a hybrid pipeline: {bm25, ${name}}RRF%20 >> bm25`, async () => {
    const { status, body } = await app.post('/pipeline', {
      pipeline: `{bm25, ${name}}RRF%20 >> bm25`,
      collection: 'cranfield',
      query: SLABS,
    });
    expect(status).toBe(200);
    expect(Object.keys(body.scores).length).toBeLessThanOrEqual(20);
    expect(Object.keys(body.scores)).toEqual(expect.arrayContaining(['5', '399']));
  });

  it('rejects a subset when the service has no subset_mapping, naming the field', async () => {
    const { status, body } = await app.post('/search', { service: name, query: 'x', subset: 'a' });
    // A .ts plugin's IrserveError comes from its own copy of irserve (tsx); its code is kept.
    expect(status).toBe(400);
    expect(body.error).toMatch(/subset: service ".*" has no subset_mapping/);
  });
});

describe.each(CASES)('examples/$example with a subset_mapping', ({ example, name }) => {
  let app: ExampleApp;
  beforeAll(async () => {
    // Odd and even document ids as two subsets; the mapping file sits in a temporary directory.
    const corpus = await readFile(join(CRANFIELD, 'corpus.jsonl'), 'utf8');
    const ids = corpus
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    const mapping = Object.fromEntries(ids.map((id) => [id, Number(id) % 2 ? 'odd' : 'even']));
    const path = join(tmpdir(), `irserve-subsets-${process.pid}-${name}.json`);
    await writeFile(path, JSON.stringify(mapping));
    app = await openExample(example, (config) => {
      service(config, name).config.subset_mapping = path;
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('searches one subset only', async () => {
    const { status, body } = await app.post('/search', {
      service: name,
      query: SLABS,
      limit: 10,
      subset: 'odd',
    });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => Number(id) % 2 === 1)).toBe(true);
    expect(ids).toContain('5');
  });

  it('rejects an unknown subset label, listing the known ones', async () => {
    const { status, body } = await app.post('/search', {
      service: name,
      query: SLABS,
      subset: 'odds',
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(/unknown subset "odds" \(known: (odd, even|even, odd)\)/);
  });
});

describe.each(CASES)('examples/$example: bad config values', ({ example, name }) => {
  const cases: [string, (config: Record<string, unknown>) => void, RegExp][] = [
    ['a missing collection', (c) => delete c.collection, /config\.collection: required/],
    [
      'an unknown collection',
      (c) => (c.collection = 'cranfeld'),
      /config\.collection: no collection "cranfeld" \(collections: cranfield\)/,
    ],
    [
      'an unknown field',
      (c) => (c.fields = ['title', 'body']),
      /config\.fields\[1\]: unknown field "body"/,
    ],
    [
      'a boost of a field not indexed',
      (c) => (c.boost = { abstract: 2 }),
      /config\.boost\.abstract/,
    ],
    ['an unknown key', (c) => (c.colection = 'x'), /config\.colection: unknown key/],
  ];
  it.each(cases)('names the field for %s', async (_label, edit, message) => {
    const open = openExample(example, (config) => edit(service(config, name).config));
    await expect(open).rejects.toThrow(message);
    await expect(open).rejects.toThrow(new RegExp(`"${name}"`));
  });
});

describe('examples/integrations/minisearch: search options from the service config', () => {
  it('rejects a bad fuzzy and combine_with together, naming both', async () => {
    const open = openExample('integrations/minisearch', (config) => {
      Object.assign(service(config, 'minisearch').config, { fuzzy: 'yes', combine_with: 'XOR' });
    });
    await expect(open).rejects.toThrow(
      /config\.fuzzy: .*config\.combine_with: must be "OR" or "AND"/s,
    );
  });

  it('prefix search finds documents from a word stem', async () => {
    const example = await openExample('integrations/minisearch', (config) => {
      Object.assign(service(config, 'minisearch').config, { prefix: true, fuzzy: false });
    });
    try {
      const { body } = await example.post('/search', { service: 'minisearch', query: 'slipstr' });
      expect(Object.keys(body.scores)).toContain('1');
    } finally {
      await example.close();
    }
  });
});
