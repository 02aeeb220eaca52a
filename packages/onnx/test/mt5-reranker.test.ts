import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import {
  MONOT5_PROMPT,
  MT5Reranker,
  MonoT5Prompt,
  MonoT5Reranker,
  SessionPool,
  TextTokenizer,
  fillTemplate,
} from '@irserve/onnx';
import { DOCS, post, startApp, testWorld, type TestWorld } from './app-helpers.js';
import { TINY_T5, UNIGRAM_TOKENIZER } from './helpers.js';
import { REFERENCE, T5_TOKENS } from './mt5-helpers.js';

const PASSAGES = DOCS.map((d) => d.text);

async function score(app: App, service: string, query: string, passages: unknown[]) {
  const { status, body } = await post(app, '/score', { service, query, passages });
  expect(status).toBe(200);
  return body.scores as number[];
}

describe('MonoT5Prompt', () => {
  it('gives the ids the generator worked out, and those of the whole prompt string', async () => {
    const pool = new SessionPool();
    const lease = await pool.acquireSeq2Seq(TINY_T5);
    try {
      const prompt = new MonoT5Prompt(lease.tokenizer, MONOT5_PROMPT, {
        queryTokens: 180,
        documentTokens: 512,
      });
      for (const pair of REFERENCE.pairs) {
        const row = prompt.encode(pair.query, pair.passage);
        expect(row.ids).toEqual(pair.ids);
        expect(row.truncated).toBe(false);
        const whole = fillTemplate(REFERENCE.prompt, {
          query: pair.query,
          document: pair.passage,
        });
        expect(lease.tokenizer.encode(whole, { maxLength: 10_000 }).ids).toEqual(pair.ids);
      }
    } finally {
      await lease.release();
    }
    expect(pool.size).toBe(0);
  });

  it('cuts the query and the passage to their limits, keeping the prompt words and </s>', async () => {
    const lease = await new SessionPool().acquireSeq2Seq(TINY_T5);
    try {
      const { tokenizer } = lease;
      const prompt = new MonoT5Prompt(tokenizer, MONOT5_PROMPT, {
        queryTokens: 2,
        documentTokens: 3,
      });
      const row = prompt.encode('what is a cat', 'the quick brown fox '.repeat(50_000));
      const expected = tokenizer.encode('Query: what is Document: the quick brown Relevant:', {
        maxLength: 100,
      }).ids;
      expect(row.ids).toEqual(expected);
      expect(row.truncated).toBe(true);
      expect(tokenizer.idToken(row.ids.at(-1)!)).toBe('</s>');
    } finally {
      await lease.release();
    }
  });
});

describe('MonoT5Prompt over a Metaspace-only tokenizer (older T5 tokenizer.json files)', () => {
  it('gives the ids of the whole string, </s> appended', () => {
    const json = JSON.parse(readFileSync(UNIGRAM_TOKENIZER, 'utf8')) as Record<string, unknown>;
    const tokenizer = new TextTokenizer(json);
    const template = 'query {query} passage {document} yes';
    const prompt = new MonoT5Prompt(tokenizer, template, { queryTokens: 50, documentTokens: 50 });
    for (const [query, passage] of [
      ['what is a cat', 'a cat is a neural retrieval model'],
      ['boiling water', 'how do i cook pasta, in salt water?'],
    ] as const) {
      const whole = fillTemplate(template, { query, document: passage });
      expect(prompt.encode(query, passage).ids).toEqual(
        tokenizer.encode(whole, { maxLength: 500 }).ids,
      );
    }
  });
});

describe('MT5Reranker', () => {
  let world: TestWorld;
  let app: App;

  beforeAll(async () => {
    world = await testWorld();
    const t5 = (config: Record<string, unknown>) => ({
      model_name_or_path: TINY_T5,
      ...T5_TOKENS,
      ...config,
    });
    app = await startApp(
      {
        collections: [world.collection],
        services: [
          { name: 'bm25', engine: 'BM25', config: { collection: 'tiny' } },
          {
            name: 'mt5',
            engine: 'MT5Reranker',
            max_wait_time: 0.01,
            config: t5({ batch_size: 2 }),
          },
          { name: 'one', engine: 'MT5Reranker', config: t5({ batch_size: 1, use_gpu: false }) },
          {
            name: 'merged',
            engine: 'MonoT5Reranker',
            config: t5({ decoder_file: 'decoder_model_merged.onnx' }),
          },
          {
            name: 'short',
            engine: 'MT5Reranker',
            config: t5({ q_max_length: 3, d_max_length: 8 }),
          },
        ],
      },
      world.dir,
      [MT5Reranker, MonoT5Reranker],
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('/score gives log p(true) of the first decoder step, as computed with numpy', async () => {
    for (const service of ['mt5', 'merged']) {
      for (const pair of REFERENCE.pairs) {
        const [got] = await score(app, service, pair.query, [pair.passage]);
        expect(got).toBeCloseTo(pair.score, 5);
      }
    }
    const byQuery = REFERENCE.pairs.filter((p) => p.query === REFERENCE.pairs[0]!.query);
    const scores = await score(
      app,
      'mt5',
      byQuery[0]!.query,
      byQuery.map((p) => p.passage),
    );
    scores.forEach((s, i) => expect(s).toBeCloseTo(byQuery[i]!.score, 5));
    for (const s of scores) expect(s).toBeLessThan(0);
  });

  it('batches of mixed lengths give the scores of one-by-one runs', async () => {
    const passages = [...PASSAGES, 'fox', 'the quick brown fox '.repeat(30), PASSAGES[1]];
    const batched = await score(app, 'mt5', 'what is a cat', passages);
    expect(batched).toHaveLength(passages.length);
    const alone = await Promise.all(
      passages.map(async (p) => (await score(app, 'one', 'what is a cat', [p]))[0]!),
    );
    batched.forEach((s, i) => expect(s).toBeCloseTo(alone[i]!, 5));
    expect(batched[6]).toBe(batched[1]);
  });

  it('cuts long queries and passages (never an error): the score of the cut text', async () => {
    const long = 'fox '.repeat(200_000);
    const [cut] = await score(app, 'short', 'what is a cat over there', [long]);
    const [same] = await score(app, 'short', 'what is a', ['fox fox fox fox fox fox fox fox']);
    expect(cut).toBeCloseTo(same!, 6);
    const [full] = await score(app, 'mt5', 'what is a cat', [long.slice(0, 4 * 600)]);
    expect(Number.isFinite(full)).toBe(true);
  });

  it('is a rerank stage: bm25 >> mt5 scores bm25 hits with the model', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: 'bm25%3 >> mt5',
      query: 'what is a cat',
      collection: 'tiny',
    });
    expect(status).toBe(200);
    expect(body.service).toBe('mt5');
    const hits = body.scores as Record<string, number>;
    expect(Object.keys(hits).length).toBeGreaterThan(0);
    for (const [id, got] of Object.entries(hits)) {
      const text = DOCS.find((d) => d.id === id)!.text;
      expect(got).toBeCloseTo((await score(app, 'one', 'what is a cat', [text]))[0]!, 5);
    }
  });

  it('bad requests are 400s, never a crash', async () => {
    expect((await post(app, '/score', { service: 'mt5', query: 'q' })).status).toBe(400);
    const number = await post(app, '/score', { service: 'mt5', query: 'q', passages: [1] });
    expect(number.status).toBe(400);
    expect(await score(app, 'mt5', '', [])).toEqual([]);
    const odd = await score(app, 'mt5', '{passage} \u0000 ☃', ['', '   ', '{query} 🦊\ud800']);
    for (const s of odd) expect(Number.isFinite(s)).toBe(true);
  });
});

describe('MT5Reranker shares its sessions', () => {
  it('through the app pool: two services on one folder load it once', async () => {
    const pool = new SessionPool();
    const [a, b] = await Promise.all([
      pool.acquireSeq2Seq(TINY_T5),
      pool.acquireSeq2Seq(`${TINY_T5}/`),
    ]);
    const c = await pool.acquireSeq2Seq(TINY_T5, { decoderFile: 'decoder_model_merged.onnx' });
    expect(a.model).toBe(b.model);
    expect(c.model).not.toBe(a.model);
    expect(pool.size).toBe(2);
    await Promise.all([a.release(), b.release(), c.release()]);
    expect(pool.size).toBe(0);
  });
});
