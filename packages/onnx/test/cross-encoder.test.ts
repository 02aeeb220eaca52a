import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'irserve';
import { engineContext } from 'irserve/testing';
import {
  CrossEncoderReranker,
  PairScorer,
  SessionPool,
  parseCrossEncoderConfig,
  splitTemplate,
  QWEN3_RERANKER_TEMPLATE,
  QWEN3_RERANKER_INSTRUCTION,
} from '@irserve/onnx';
import { DOCS, post, startApp, testWorld, type TestWorld } from './app-helpers.js';
import { TINY_BERT, TINY_CROSS_ENCODER, TINY_YES_NO } from './helpers.js';

const PASSAGES = DOCS.map((d) => d.text);

/** The logit of one pair computed by hand: tokenizer + session, no engine code. */
async function directLogit(query: string, passage: string): Promise<number> {
  const lease = await new SessionPool().acquire(TINY_CROSS_ENCODER);
  try {
    const batch = lease.tokenizer.encodeBatch([{ text: query, pair: passage }], { maxLength: 512 });
    return (await lease.session.run(batch, ['logits'])).logits!.data[0]!;
  } finally {
    await lease.release();
  }
}

describe('CrossEncoderReranker', () => {
  let world: TestWorld;
  let app: App;

  beforeAll(async () => {
    world = await testWorld();
    app = await startApp(
      {
        collections: [world.collection],
        services: [
          { name: 'bm25', engine: 'BM25', config: { collection: 'tiny' } },
          {
            name: 'rerank',
            engine: 'CrossEncoderReranker',
            max_wait_time: 0.01,
            config: { model_path: TINY_CROSS_ENCODER, batch_size: 2 },
          },
          {
            name: 'rerank-sigmoid',
            engine: 'CrossEncoderReranker',
            config: {
              model_name_or_path: TINY_CROSS_ENCODER,
              activation: 'sigmoid',
              max_length: 16,
            },
          },
          {
            name: 'yesno',
            engine: 'CrossEncoderReranker',
            config: { model_path: TINY_YES_NO, max_length: 200 },
          },
        ],
      },
      world.dir,
      [CrossEncoderReranker],
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('/score gives the model logit of each (query, passage), in passage order', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'rerank',
      query: 'what is a cat',
      passages: PASSAGES,
    });
    expect(status).toBe(200);
    expect(body.scores).toHaveLength(4);
    for (const [i, passage] of PASSAGES.entries())
      expect(body.scores[i]).toBeCloseTo(await directLogit('what is a cat', passage), 5);
  });

  it('splits batches to batch_size without changing a score, and sigmoid maps into (0, 1)', async () => {
    const many = [...PASSAGES, ...PASSAGES, 'fox'];
    const split = await post(app, '/score', { service: 'rerank', query: 'fox', passages: many });
    expect(split.body.scores).toHaveLength(9);
    expect(split.body.scores[4]).toBeCloseTo(split.body.scores[0], 5);
    const sig = await post(app, '/score', {
      service: 'rerank-sigmoid',
      query: 'fox',
      passages: many,
    });
    for (const s of sig.body.scores as number[]) expect(s > 0 && s < 1).toBe(true);
  });

  it('cuts long passages (never an error)', async () => {
    const long = 'the quick brown fox '.repeat(20_000);
    const { status, body } = await post(app, '/score', {
      service: 'rerank-sigmoid',
      query: 'fox',
      passages: [long, 'fox'],
    });
    expect(status).toBe(200);
    expect(body.scores).toHaveLength(2);
  });

  it('yes/no LLM reranker: p(yes) at the last token of the Qwen3 prompt', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'yesno',
      query: 'cat query',
      passages: PASSAGES,
    });
    expect(status).toBe(200);
    const lease = await new SessionPool().acquire(TINY_YES_NO);
    try {
      const [prefix, suffix] = splitTemplate(QWEN3_RERANKER_TEMPLATE, 'passage', {
        query: 'cat query',
        instruction: QWEN3_RERANKER_INSTRUCTION,
      });
      const batch = lease.tokenizer.encodeBatch([{ prefix, text: PASSAGES[2]!, suffix }], {
        maxLength: 200,
      });
      const logits = (await lease.session.run(batch, ['logits'])).logits!;
      const vocab = logits.dims[2]!;
      const last = (batch.length - 1) * vocab;
      const yes = logits.data[last + lease.tokenizer.tokenId('yes')!]!;
      const no = logits.data[last + lease.tokenizer.tokenId('no')!]!;
      expect(body.scores[2]).toBeCloseTo(1 / (1 + Math.exp(no - yes)), 5);
    } finally {
      await lease.release();
    }
  });

  it('refuses at run time hidden states whose width the graph leaves symbolic (issue 39, item 5)', async () => {
    const lease = await new SessionPool().acquire(TINY_BERT);
    try {
      // As an export that names the last dimension instead of giving it.
      const real = lease.session;
      const session = {
        outputNames: real.outputNames,
        outputShape: () => ['batch', 'sequence', 'hidden'],
        run: (...args: Parameters<typeof real.run>) => real.run(...args),
      } as unknown as typeof real;
      const model = { folder: lease.folder, tokenizer: lease.tokenizer, session };
      const settings = parseCrossEncoderConfig({
        model_path: TINY_BERT,
        yes_token: 'the',
        no_token: 'a',
      });
      const scorer = new PairScorer(model, settings);
      await expect(scorer.score([{ query: 'q', passage: 'the cat' }])).rejects.toMatchObject({
        code: 'ERR_ENGINE',
        message: expect.stringMatching(
          /last_hidden_state has 32 columns, fewer than the tokenizer's \d+ tokens: not next-token logits/,
        ),
      });
    } finally {
      await lease.release();
    }
  });

  it('is a rerank stage: bm25 >> rerank orders bm25 hits by the model', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: 'bm25%3 >> rerank',
      query: 'the fox and the cat',
      collection: 'tiny',
    });
    expect(status).toBe(200);
    expect(body.service).toBe('rerank');
    const ids = Object.keys(body.scores as Record<string, number>);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const text = DOCS.find((d) => d.id === id)!.text;
      expect(body.scores[id]).toBeCloseTo(await directLogit('the fox and the cat', text), 5);
    }
  });

  it('bad requests are 400s, never a crash', async () => {
    expect((await post(app, '/score', { service: 'rerank', query: 'q' })).status).toBe(400);
    expect(
      (await post(app, '/score', { service: 'rerank', query: 'q', passages: [1] })).status,
    ).toBe(400);
    const empty = await post(app, '/score', { service: 'rerank', query: '', passages: [] });
    expect(empty.status).toBe(200);
    expect(empty.body.scores).toEqual([]);
  });
});

describe('CrossEncoderReranker cacheIdentity (issue 39, item 1)', () => {
  it('is the content of the model folder: equal for a copy, different for another model', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-ce-identity-'));
    await cp(TINY_CROSS_ENCODER, join(root, 'copy'), { recursive: true });
    const identity = async (model_path: string) => {
      const context = engineContext({ name: 'ce', configDir: root });
      const engine = new CrossEncoderReranker({ name: 'ce', config: { model_path }, context });
      await engine.start();
      const value = await engine.cacheIdentity();
      await engine.close();
      return value;
    };
    const original = await identity(TINY_CROSS_ENCODER);
    expect(await identity('copy')).toBe(original);
    expect(await identity(TINY_YES_NO)).not.toBe(original);
  });
});

describe('CrossEncoderReranker start-up errors', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld();
  });
  afterAll(async () => world?.close());

  const start = (config: Record<string, unknown>) =>
    startApp({ services: [{ name: 'ce', engine: 'CrossEncoderReranker', config }] }, world.dir, [
      CrossEncoderReranker,
    ]);

  it.each([
    [{}, /model_path/],
    [{ model_path: 'a', model_name_or_path: 'b' }, /model_path/],
    [
      { model_path: TINY_CROSS_ENCODER, batch_sise: 3 },
      /batch_sise: unknown key \(did you mean "batch_size"\?\)/,
    ],
    [{ model_path: TINY_CROSS_ENCODER, mode: 'yes_no' }, /mode "yes_no" needs next-token logits/],
    [
      { model_path: TINY_BERT, mode: 'classifier' },
      /mode "classifier" needs classifier logits .* last_hidden_state/,
    ],
    [{ model_path: TINY_YES_NO, yes_token: 'absolutely' }, /no token "absolutely"/],
    // Issue 39, item 5: an embedding model's hidden states [batch, sequence, 32] are not
    // next-token logits over a vocabulary of 125 tokens (auto mode took them as such).
    [
      { model_path: TINY_BERT, yes_token: '[CLS]', no_token: '[SEP]' },
      /needs next-token logits over the tokenizer's \d+ tokens, but last_hidden_state has 32 columns/,
    ],
    [
      { model_path: TINY_BERT, mode: 'yes_no', yes_token: 'the', no_token: 'a' },
      /needs next-token logits over the tokenizer's \d+ tokens/,
    ],
    [
      { model_path: 'no/such/folder' },
      /config\.model_path: model no\/such\/folder is not in the Hugging Face cache/,
    ],
    [
      { model_path: TINY_CROSS_ENCODER, instruction: 'x' },
      /instruction only apply to mode "yes_no"/,
    ],
    [
      { model_path: TINY_YES_NO, activation: 'sigmoid' },
      /activation only apply to mode "classifier"/,
    ],
  ])('%j is refused at start-up', async (config, message) => {
    await expect(start(config)).rejects.toThrow(message);
  });
});
