import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { engineContext, post, startTestApp } from 'irserve/testing';
import { CrossEncoderReranker, sessionPoolFor } from '@irserve/onnx';
import { Dense, SentenceTransformerEngine } from '../../src/index.js';
import { importOnnx } from '../../src/engine/local-embedder.js';
import { saveIndex, trainAndAdd } from '../../src/vector-index/index.js';
import {
  DOCS,
  TINY_BERT,
  TINY_CROSS_ENCODER,
  embedDirect,
  localWorld,
  type LocalWorld,
} from './local-world.js';

const ENGINES = [Dense, SentenceTransformerEngine, CrossEncoderReranker];

const startApp = async (config: Record<string, unknown>, dir: string) =>
  (await startTestApp(config, { engines: ENGINES, dir })).app;

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}

describe('Dense with a local encoder', () => {
  let world: LocalWorld;
  let app: App;

  beforeAll(async () => {
    world = await localWorld();
    const encoder = {
      model_path: TINY_BERT,
      query_prompt: 'query: {query}',
      passage_prompt: 'passage: {passage}',
    };
    app = await startApp(
      {
        collections: [world.collection],
        services: [
          { name: 'bm25', engine: 'BM25', config: { collection: 'tiny' } },
          {
            name: 'dense',
            engine: 'Dense',
            max_wait_time: 0.01,
            config: { index_path: world.indexDir, encoder },
          },
          {
            name: 'st',
            engine: 'SentenceTransformerEngine',
            config: {
              index_path: world.indexDir,
              embedding_model_name: TINY_BERT,
              instruction: 'query: {query}',
              normalize_embeddings: true,
              batch_size: 2,
              k_scale: 2,
            },
          },
          {
            name: 'rerank',
            engine: 'CrossEncoderReranker',
            config: { model_path: TINY_CROSS_ENCODER },
          },
        ],
      },
      world.dir,
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('/search embeds the query in process and ranks by inner product with the index', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'dense',
      query: 'how do i cook pasta',
      limit: 5,
    });
    expect(status).toBe(200);
    const [query] = await embedDirect(['query: how do i cook pasta']);
    const passages = await embedDirect(DOCS.map((d) => `passage: ${d.text}`));
    const expected = DOCS.map((d, i) => [d.id, dot(query!, passages[i]!)] as const).sort(
      (a, b) => b[1] - a[1],
    );
    const got = Object.entries(body.scores as Record<string, number>).sort((a, b) => b[1] - a[1]);
    expect(got.map(([id]) => id)).toEqual(expected.map(([id]) => id));
    got.forEach(([, score], i) => expect(score).toBeCloseTo(expected[i]![1], 4));
  });

  it('SentenceTransformerEngine (RoutIR fields) gives the same ranking as Dense + encoder', async () => {
    const query = { query: 'a cat model', limit: 3 };
    const dense = await post(app, '/search', { service: 'dense', ...query });
    const st = await post(app, '/search', { service: 'st', ...query });
    expect(st.status).toBe(200);
    expect(Object.keys(st.body.scores)).toEqual(Object.keys(dense.body.scores));
  });

  it('/score compares query and passage embeddings with their prompts', async () => {
    const { body } = await post(app, '/score', {
      service: 'dense',
      query: 'cat',
      passages: [DOCS[2]!.text, 'dog'],
    });
    const [q, p, d] = await embedDirect([
      'query: cat',
      `passage: ${DOCS[2]!.text}`,
      'passage: dog',
    ]);
    expect(body.scores[0]).toBeCloseTo(dot(q!, p!), 4);
    expect(body.scores[1]).toBeCloseTo(dot(q!, d!), 4);
  });

  it('{bm25, dense}RRF%50 >> rerank runs end to end in process', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: '{bm25, dense}RRF%50 >> rerank',
      query: 'salt water pasta',
      collection: 'tiny',
    });
    expect(status).toBe(200);
    expect(body.service).toBe('rerank');
    expect(Object.keys(body.scores).length).toBeGreaterThan(1);
  });

  it('a text the model cannot take is cut, never an error', async () => {
    const { status } = await post(app, '/search', {
      service: 'dense',
      query: 'pasta '.repeat(50_000),
      limit: 2,
    });
    expect(status).toBe(200);
  });
});

describe('Dense embedBatch and shared sessions', () => {
  let world: LocalWorld;
  beforeAll(async () => {
    world = await localWorld();
  });
  afterAll(async () => world?.close());

  function engine(config: Record<string, unknown>, resources = new Map<string, unknown>()): Dense {
    const context = engineContext({ name: 'dense', configDir: world.dir, resources });
    return new Dense({ name: 'dense', config, context });
  }

  it('embedBatch applies the prompt of each kind; services naming one folder share one session', async () => {
    const resources = new Map<string, unknown>();
    const encoder = {
      model_path: TINY_BERT,
      query_prompt: 'query: {query}',
      passage_prompt: 'passage: {passage}',
    };
    const a = engine({ index_path: world.indexDir, encoder }, resources);
    const b = engine({ index_path: world.indexDir, encoder: { model_path: TINY_BERT } }, resources);
    await Promise.all([a.start(), b.start()]);
    expect(sessionPoolFor(engineContext({ resources })).size).toBe(1);
    const vectors = await a.embedBatch([
      { text: 'cat', kind: 'query' },
      { text: 'cat', kind: 'passage' },
    ]);
    const expected = await embedDirect(['query: cat', 'passage: cat']);
    expect(dot(vectors[0]!, expected[0]!)).toBeCloseTo(1, 4);
    expect(dot(vectors[1]!, expected[1]!)).toBeCloseTo(1, 4);
    await expect(a.embedBatch([{ text: 'x', kind: 'document' as 'query' }])).rejects.toThrow(
      /kind: must be/,
    );
    await a.close();
    expect(sessionPoolFor(engineContext({ resources })).size).toBe(1);
    await b.close();
    expect(sessionPoolFor(engineContext({ resources })).size).toBe(0);
  });

  it("the prompts default to the model folder's sentence-transformers prompts", async () => {
    const dir = join(world.dir, 'prompted-model');
    cpSync(TINY_BERT, dir, { recursive: true });
    writeFileSync(
      join(dir, 'config_sentence_transformers.json'),
      JSON.stringify({ prompts: { query: 'query: ', document: 'passage: ' } }),
    );
    const dense = engine({ index_path: world.indexDir, encoder: { model_path: dir } });
    const given = engine({
      index_path: world.indexDir,
      encoder: { model_path: dir, query_prompt: '{query}' },
    });
    await Promise.all([dense.start(), given.start()]);
    const [query, passage] = await dense.embedBatch([
      { text: 'cat', kind: 'query' },
      { text: 'cat', kind: 'passage' },
    ]);
    const [bare] = await given.embedBatch([{ text: 'cat', kind: 'query' }]);
    const expected = await embedDirect(['query: cat', 'passage: cat', 'cat']);
    expect(dot(query!, expected[0]!)).toBeCloseTo(1, 4);
    expect(dot(passage!, expected[1]!)).toBeCloseTo(1, 4);
    expect(dot(bare!, expected[2]!)).toBeCloseTo(1, 4);
    await Promise.all([dense.close(), given.close()]);
  });

  it('cacheIdentity follows the content of the index and the model, not their paths (issue 39, item 1)', async () => {
    const copy = join(world.dir, 'model-copy');
    const changed = join(world.dir, 'model-changed');
    cpSync(TINY_BERT, copy, { recursive: true });
    cpSync(TINY_BERT, changed, { recursive: true });
    const config = JSON.parse(readFileSync(join(changed, 'config.json'), 'utf8'));
    writeFileSync(join(changed, 'config.json'), JSON.stringify({ ...config, revision: 2 }));
    const indexCopy = join(world.dir, 'index-copy');
    cpSync(world.indexDir, indexCopy, { recursive: true });
    const otherIndex = join(world.dir, 'index-other');
    await saveIndex(
      trainAndAdd('Flat', new Float32Array(32 * 2).fill(0.1), 32, 'ip'),
      ['x', 'y'],
      otherIndex,
    );
    const identity = async (index: string, model: string) => {
      const dense = engine({ index_path: index, encoder: { model_path: model } });
      await dense.start();
      const value = await dense.cacheIdentity();
      await dense.close();
      return value;
    };
    const original = await identity(world.indexDir, TINY_BERT);
    expect(await identity(indexCopy, copy)).toBe(original);
    expect(await identity(world.indexDir, changed)).not.toBe(original);
    expect(await identity(otherIndex, TINY_BERT)).not.toBe(original);
  });

  it('a blank query or a zero query vector finds nothing (issue 39, item 6)', async () => {
    const dense = engine({
      index_path: world.indexDir,
      encoder: { model_path: TINY_BERT },
    });
    await dense.start();
    const found = await dense.searchBatch([
      { query: '', limit: 3 },
      { query: ' \n ', limit: 3 },
      { query: 'cat', limit: 3 },
    ]);
    expect(found.slice(0, 2)).toEqual([{}, {}]);
    expect(Object.keys(found[2]!).length).toBeGreaterThan(0);
    await dense.close();
    // An embedder that maps a text (stop words, for a toy model) to the zero vector: once, the
    // first documents of the index with score 0.
    const context = engineContext({ name: 'zeros', configDir: world.dir });
    const zeros = new Dense(
      {
        name: 'zeros',
        config: {
          index_path: world.indexDir,
          embedding_base_url: 'http://x',
          embedding_model_name: 'zeros',
        },
        context,
      },
      {
        embedder: async () => ({
          embed: async (texts) => texts.map(() => new Float32Array(32)),
          dimension: 32,
          label: 'zeros',
          close: async () => undefined,
        }),
      },
    );
    await zeros.start();
    expect(await zeros.searchBatch([{ query: 'the of', limit: 3 }])).toEqual([{}]);
    await zeros.close();
  });

  it('an index of another dimension is refused at start-up', async () => {
    const other = join(world.dir, 'index-64');
    await saveIndex(
      trainAndAdd('Flat', new Float32Array(64 * 2).fill(0.1), 64, 'ip'),
      ['x', 'y'],
      other,
    );
    const dense = engine({ index_path: other, encoder: { model_path: TINY_BERT } });
    await expect(dense.start()).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(
        /makes 32-dimensional vectors, but the index .* holds 64-dimensional ones/,
      ),
    });
  });

  it.each([
    [
      { encoder: { model_path: TINY_BERT }, embedding_base_url: 'http://127.0.0.1:1/v1' },
      /not both/,
    ],
    [{}, /embedding_base_url \(an embeddings API\) or encoder/],
    [
      { encoder: { model_path: TINY_BERT }, api_key: 'k' },
      /api_key: only applies to embedding_base_url/,
    ],
    [
      { encoder: { model_path: TINY_BERT, query_prompt: '{query}' }, query_prompt: 'q: {query}' },
      /given twice/,
    ],
    [{ encoder: { model_path: TINY_BERT, pooling: 'median' } }, /encoder\.pooling/],
    [{ encoder: { model_path: TINY_BERT, query_prompt: 'no slot' } }, /encoder\.query_prompt/],
    [{ embedding_base_url: 'http://127.0.0.1:1/v1' }, /embedding_model_name: required/],
  ])('config %j is refused', (config, message) => {
    expect(() => engine({ index_path: world.indexDir, ...config })).toThrow(message);
  });

  it('a missing model folder or a graph that does not fit the pooling fails start-up', async () => {
    await expect(
      engine({
        index_path: world.indexDir,
        encoder: { model_path: 'no/such/model' },
      }).start(),
    ).rejects.toThrow(
      /config\.encoder\.model_path: model no\/such\/model is not in the Hugging Face cache/,
    );
    await expect(
      engine({
        index_path: world.indexDir,
        encoder: { model_path: TINY_CROSS_ENCODER, pooling: 'mean' },
      }).start(),
    ).rejects.toThrow(/pooling "mean" needs a \[batch, sequence, hidden\] output/);
    await expect(
      engine({
        index_path: world.indexDir,
        encoder: { model_path: TINY_CROSS_ENCODER },
      }).start(),
    ).rejects.toThrow(/makes 1-dimensional vectors, but the index .* holds 32-dimensional ones/);
  });

  it('without @irserve/onnx installed, encoder is a start-up error saying what to install', async () => {
    const missing = Object.assign(
      new Error("Cannot find package '@irserve/onnx' imported from dense"),
      {
        code: 'ERR_MODULE_NOT_FOUND',
      },
    );
    await expect(importOnnx(Promise.reject(missing))).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(/npm install @irserve\/onnx/),
    });
  });
});
