/**
 * The engines of this package on checkpoint folders (no ONNX file): each builds the graph it
 * needs, and answers as the torch.onnx.export of the same weights does on the same tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import {
  CrossEncoderReranker,
  QWEN3_RERANKER_INSTRUCTION,
  QWEN3_RERANKER_TEMPLATE,
  SessionPool,
  TextEncoder,
  l2Normalize,
  lastTokenPool,
  meanPool,
  splitTemplate,
} from '@irserve/onnx';
import { DOCS, post, startApp, testWorld, type TestWorld } from './app-helpers.js';
import { CHECKPOINTS, EXPORTS, runExport } from './checkpoint-helpers.js';
import { maxDiff } from './helpers.js';

const PASSAGES = DOCS.map((d) => d.text);

describe('CrossEncoderReranker on checkpoint folders', () => {
  let world: TestWorld;
  let app: App;

  beforeAll(async () => {
    world = await testWorld();
    app = await startApp(
      {
        collections: [world.collection],
        services: ['bert', 'roberta', 'xlm-roberta', 'electra', 'distilbert'].map((name) => ({
          name,
          engine: 'CrossEncoderReranker',
          config: { model_path: `${CHECKPOINTS}${name}`, label: 0 },
        })),
      },
      world.dir,
      [CrossEncoderReranker],
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it.each(['bert', 'roberta', 'xlm-roberta', 'electra', 'distilbert'])(
    '%s: the classifier logit of each pair, as the exported graph gives it',
    async (name) => {
      const { status, body } = await post(app, '/score', {
        service: name,
        query: 'what is a cat',
        passages: PASSAGES,
      });
      expect(status).toBe(200);
      const pool = new SessionPool();
      const lease = await pool.acquire(`${CHECKPOINTS}${name}`, { head: 'classifier' });
      try {
        const batch = lease.tokenizer.encodeBatch(
          PASSAGES.map((passage) => ({ text: 'what is a cat', pair: passage })),
          { maxLength: 64 },
        );
        const exported = await runExport(`${EXPORTS}${name}-classifier.onnx`, batch);
        const labels = exported.dims[1]!;
        const first = PASSAGES.map((_, r) => exported.data[r * labels]!);
        expect(
          maxDiff(Float32Array.from(body.scores as number[]), Float32Array.from(first)),
        ).toBeLessThan(1e-4);
      } finally {
        await lease.release();
      }
    },
  );
});

describe('TextEncoder on a checkpoint folder', () => {
  it('embeds with the hidden-state graph as the exported graph and mean pooling do', async () => {
    const lease = await new SessionPool().acquire(`${CHECKPOINTS}xlm-roberta`, { head: 'hidden' });
    const encoder = new TextEncoder(lease, { pooling: 'mean', batchSize: 2 });
    try {
      const vectors = await encoder.embed(PASSAGES);
      const batch = lease.tokenizer.encodeBatch(PASSAGES, { maxLength: 64 });
      const exported = meanPool(
        await runExport(`${EXPORTS}xlm-roberta-hidden.onnx`, batch),
        batch.attentionMask,
      );
      for (const [i, vector] of vectors.entries())
        expect(maxDiff(vector, exported[i]!)).toBeLessThan(1e-4);
      expect(encoder.dimension).toBe(32);
    } finally {
      await encoder.close();
    }
  });
});

describe('CrossEncoderReranker on a causal-LM checkpoint (Qwen3-Reranker)', () => {
  let world: TestWorld;
  let app: App;

  beforeAll(async () => {
    world = await testWorld();
    app = await startApp(
      {
        services: [
          {
            name: 'qwen3',
            engine: 'CrossEncoderReranker',
            config: { model_path: `${CHECKPOINTS}qwen3`, batch_size: 3 },
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

  it("scores p(yes) at the last token of RoutIR's prompt, as the exported graph gives it", async () => {
    const { status, body } = await post(app, '/score', {
      service: 'qwen3',
      query: 'what is a cat',
      passages: PASSAGES,
    });
    expect(status).toBe(200);
    const lease = await new SessionPool().acquire(`${CHECKPOINTS}qwen3`, {
      head: 'next-token',
      tokens: ['yes', 'no'],
    });
    try {
      const inputs = PASSAGES.map((passage) => {
        const [prefix, suffix] = splitTemplate(QWEN3_RERANKER_TEMPLATE, 'passage', {
          query: 'what is a cat',
          instruction: QWEN3_RERANKER_INSTRUCTION,
        });
        return { prefix, text: passage, suffix };
      });
      const batch = lease.tokenizer.encodeBatch(inputs, { maxLength: 1024 });
      expect(batch.paddingSide).toBe('left');
      const logits = await runExport(`${EXPORTS}qwen3-next-token.onnx`, batch);
      const vocab = logits.dims[1]!;
      const [yes, no] = [lease.tokenizer.tokenId('yes')!, lease.tokenizer.tokenId('no')!];
      const expected = PASSAGES.map((_, r) => {
        const diff = logits.data[r * vocab + yes]! - logits.data[r * vocab + no]!;
        return 1 / (1 + Math.exp(-diff));
      });
      expect(
        maxDiff(Float32Array.from(body.scores as number[]), Float32Array.from(expected)),
      ).toBeLessThan(1e-5);
    } finally {
      await lease.release();
    }
  });
});

describe('Qwen3-Embedding-style checkpoint through TextEncoder', () => {
  it('pools the last token (the appended <|endoftext|>) and normalises, as the folder says', async () => {
    const lease = await new SessionPool().acquire(`${CHECKPOINTS}qwen3-embedding`, {
      head: 'hidden',
    });
    const encoder = new TextEncoder(lease, { batchSize: 2 });
    try {
      expect([encoder.pooling, encoder.normalize]).toEqual(['last_token', true]);
      const texts = ['Instruct: find\nQuery:what is a cat', 'the quick brown fox', 'a'];
      const vectors = await encoder.embed(texts);
      const batch = lease.tokenizer.encodeBatch(texts, { maxLength: 1024 });
      const states = await runExport(`${EXPORTS}qwen3-embedding-hidden.onnx`, batch);
      const exported = l2Normalize(lastTokenPool(states, batch.attentionMask));
      for (const [i, vector] of vectors.entries())
        expect(maxDiff(vector, exported[i]!)).toBeLessThan(1e-5);
    } finally {
      await encoder.close();
    }
  });
});
