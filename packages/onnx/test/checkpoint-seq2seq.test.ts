/**
 * T5 and mT5 checkpoint folders (no ONNX file) behind MonoT5Reranker / MT5Reranker: irserve
 * builds one graph (encoder and the decoder's first step) and scores as the independent
 * reference does (fixtures/reference_t5.py).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { FirstStepGraph, MT5Reranker, MonoT5Reranker, SessionPool } from '@irserve/onnx';
import { post, startApp, testWorld, type TestWorld } from './app-helpers.js';
import {
  CHECKPOINTS,
  checkpointCopy,
  expected,
  readReference,
  referenceBatch,
} from './checkpoint-helpers.js';
import { maxDiff } from './helpers.js';

interface Seq2SeqReference {
  prompt: string;
  token_false: string;
  token_true: string;
  pairs: { query: string; passage: string; score: number }[];
}

function pairsOf(name: string): Seq2SeqReference {
  const file = `${CHECKPOINTS}${name}/reference.json`;
  return JSON.parse(readFileSync(file, 'utf8')) as Seq2SeqReference;
}

describe('MonoT5Reranker and MT5Reranker on T5 / mT5 checkpoint folders', () => {
  let world: TestWorld;
  let app: App;

  beforeAll(async () => {
    world = await testWorld();
    const service = (name: string, engine: string) => {
      const ref = pairsOf(name);
      return {
        name,
        engine,
        config: {
          model_name_or_path: `${CHECKPOINTS}${name}`,
          token_false: ref.token_false,
          token_true: ref.token_true,
          prompt: ref.prompt,
          batch_size: 2,
        },
      };
    };
    app = await startApp(
      { services: [service('t5', 'MonoT5Reranker'), service('mt5', 'MT5Reranker')] },
      world.dir,
      [MT5Reranker, MonoT5Reranker],
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it.each(['t5', 'mt5'])(
    '%s: each pair scores log p(true) of the reference forward pass',
    async (name) => {
      for (const pair of pairsOf(name).pairs) {
        const { status, body } = await post(app, '/score', {
          service: name,
          query: pair.query,
          passages: [pair.passage],
        });
        expect(status).toBe(200);
        expect((body.scores as number[])[0]).toBeCloseTo(pair.score, 4);
      }
    },
  );

  it('a batch of passages of different lengths gives the one-by-one scores', async () => {
    const ref = pairsOf('t5');
    const query = ref.pairs[0]!.query;
    const passages = ref.pairs.map((p) => p.passage);
    const { body } = await post(app, '/score', { service: 't5', query, passages });
    const alone = await Promise.all(
      passages.map(async (passage) => {
        const answer = await post(app, '/score', { service: 't5', query, passages: [passage] });
        return (answer.body.scores as number[])[0]!;
      }),
    );
    expect(
      maxDiff(Float32Array.from(body.scores as number[]), Float32Array.from(alone)),
    ).toBeLessThan(1e-5);
  });
});

describe('T5 checkpoints in the pool', () => {
  it('one first-step graph per folder, shared by the services naming it', async () => {
    const pool = new SessionPool();
    const a = await pool.acquireSeq2Seq(`${CHECKPOINTS}mt5`);
    const b = await pool.acquireSeq2Seq(`${CHECKPOINTS}mt5/`);
    try {
      expect(a.model).toBeInstanceOf(FirstStepGraph);
      expect(b.model).toBe(a.model);
      expect(a.model.vocabSize).toBe(readReference('mt5').outputs['first-step']!.dims[1]);
      expect(pool.size).toBe(1);
      const ref = readReference('mt5');
      const logits = await a.model.firstStepLogits(referenceBatch(ref));
      expect(maxDiff(logits.data, expected(ref, 'first-step'))).toBeLessThan(1e-4);
    } finally {
      await Promise.all([a.release(), b.release()]);
    }
    expect(pool.size).toBe(0);
  });

  it('refuses a head a T5 has not, a missing tensor and an unknown feed_forward_proj', async () => {
    await expect(new SessionPool().acquire(`${CHECKPOINTS}t5`, { head: 'hidden' })).rejects.toThrow(
      /a t5 checkpoint has no hidden head \(irserve builds first-step for it\)/,
    );
    const dir = await checkpointCopy('t5', {});
    try {
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, num_layers: 3 }));
      await expect(new SessionPool().acquireSeq2Seq(dir)).rejects.toThrow(
        /encoder\.block\.2\.layer\.0\.layer_norm\.weight/,
      );
      await writeFile(
        join(dir, 'config.json'),
        JSON.stringify({ ...config, feed_forward_proj: 'gated-swish2' }),
      );
      await expect(new SessionPool().acquireSeq2Seq(dir)).rejects.toThrow(
        /feed_forward_proj "gated-swish2" is not supported/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a folder with neither graphs nor weights names both layouts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-t5-empty-'));
    try {
      await writeFile(join(dir, 'config.json'), JSON.stringify({ model_type: 't5' }));
      await expect(new SessionPool().acquireSeq2Seq(dir)).rejects.toThrow(
        /no encoder graph.*or a T5 \/ mT5 checkpoint: config.json, model.safetensors/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
