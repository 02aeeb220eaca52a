import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { compatApp } from './compat-app.js';
import { HashEmbedder, hashVector } from './engines.js';

const KEY = 'compat-key-0123456789';
let app: App;
let client: OpenAI;
let base: string;

beforeAll(async () => {
  ({ app, base } = await compatApp(KEY));
  client = new OpenAI({ baseURL: `${base}/v1`, apiKey: KEY, maxRetries: 0 });
});
afterAll(async () => {
  await app.close();
});

const close = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  expect(Array.from(a).map((x) => x.toFixed(5))).toEqual(Array.from(b).map((x) => x.toFixed(5)));

describe('OpenAI /v1/embeddings with the official openai client', () => {
  it('embeds a string with a Dense-like engine as a passage (the client asks for base64)', async () => {
    const answer = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'a cat',
    });
    expect(answer.model).toBe('text-embedding-3-small');
    expect(answer.data).toHaveLength(1);
    close(answer.data[0]!.embedding, hashVector('passage: a cat', 64));
    expect(answer.usage.prompt_tokens).toBe(2);
  });

  it('embeds an array in order, as floats when asked', async () => {
    const answer = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['one', 'two', 'three'],
      encoding_format: 'float',
    });
    expect(answer.data.map((d) => d.index)).toEqual([0, 1, 2]);
    close(answer.data[2]!.embedding, hashVector('passage: three', 64));
  });

  it('uses the kind of the model mapping, and input_type overrides it', async () => {
    const mapped = await client.embeddings.create({ model: 'hash-query', input: 'x y' });
    close(mapped.data[0]!.embedding, hashVector('query: x y', 16));
    const asPassage = await client.embeddings.create({
      model: 'hash-query',
      input: 'x y',
      // @ts-expect-error irserve extension
      input_type: 'search_document',
    });
    close(asPassage.data[0]!.embedding, hashVector('passage: x y', 16));
  });

  it('serves services under their own names and lists the models', async () => {
    const answer = await client.embeddings.create({ model: 'hash', input: 'z' });
    expect(answer.data[0]!.embedding).toHaveLength(16);
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'text-embedding-3-small',
        'hash-query',
        'matryoshka',
        'hash',
        'rerank-v3.5',
        'cascade',
        'splade',
        'overlap',
      ]),
    );
    const one = await client.models.retrieve('matryoshka');
    expect(one).toMatchObject({
      id: 'matryoshka',
      owned_by: 'irserve',
      description: 'truncatable',
    });
  });

  it('lists each model name once, with every capability it has', async () => {
    const models: { id: string; capabilities?: Record<string, string> }[] = [];
    for await (const model of client.models.list()) models.push(model);
    const ids = models.map((model) => model.id);
    expect(ids).toEqual([...new Set(ids)]);
    // "dense" embeds and scores: exposed under its own name in both sections, one model.
    expect(models.find((model) => model.id === 'dense')).toMatchObject({
      capabilities: { embeddings: 'dense', rerank: 'dense' },
    });
    expect(models.find((model) => model.id === 'cascade')).toMatchObject({
      capabilities: { rerank: 'cascade' },
    });
    expect(await client.models.retrieve('dense')).toMatchObject({
      capabilities: { embeddings: 'dense', rerank: 'dense' },
    });
  });

  it('truncates and re-normalises Matryoshka models to `dimensions`, refuses others', async () => {
    const answer = await client.embeddings.create({
      model: 'matryoshka',
      input: 'one two three four five six seven eight nine ten',
      dimensions: 8,
    });
    const vector = answer.data[0]!.embedding;
    expect(vector).toHaveLength(8);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    await expect(
      client.embeddings.create({ model: 'text-embedding-3-small', input: 'a', dimensions: 8 }),
    ).rejects.toMatchObject({ status: 400, param: 'dimensions' });
  });

  it('raises the client errors OpenAI would: unknown model 404, bad input 400, bad key 401', async () => {
    await expect(client.embeddings.create({ model: 'nope', input: 'a' })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    await expect(client.embeddings.create({ model: 'hash', input: [] })).rejects.toBeInstanceOf(
      OpenAI.BadRequestError,
    );
    const wrong = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'wrong', maxRetries: 0 });
    await expect(wrong.embeddings.create({ model: 'hash', input: 'a' })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    await expect(client.embeddings.create({ model: 'broken', input: 'a' })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
  });

  it('batches a burst of calls and answers repeats from the cache', async () => {
    HashEmbedder.batches = [];
    // Adaptive batching sends an idle engine each call at once; calls that arrive while a batch
    // is in flight are gathered, so the engine is made to take a moment.
    HashEmbedder.delayMs = 30;
    const texts = Array.from({ length: 40 }, (_, i) => `burst text ${i}`);
    await Promise.all(texts.map((input) => client.embeddings.create({ model: 'hash', input })));
    HashEmbedder.delayMs = 0;
    const sizes = HashEmbedder.batches.map((b) => b.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    HashEmbedder.batches = [];
    await client.embeddings.create({ model: 'hash', input: texts });
    expect(HashEmbedder.batches).toEqual([]);
  });
});
