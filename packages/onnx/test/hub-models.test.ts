/**
 * The rerankers with hub ids for `model_path` / `model_name_or_path`: the tiny models are
 * published to a local hub stand-in in the layouts real repositories use (transformers.js's
 * `onnx/` folder, Optimum's seq2seq export), fetched into a Hugging Face cache, and scored
 * exactly as from a local folder.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { CrossEncoderReranker, MT5Reranker, SessionPool } from '@irserve/onnx';
import { HubStandIn } from '../../irserve/test/helpers/hub-stand-in.js';
import {
  CROSS_ENCODER_REPO,
  T5_REPO,
  filesOf,
  publishTinyModels,
} from '../../irserve/test/helpers/hub-models.js';
import { createModelSource } from 'irserve/plugin';
import { CHECKPOINTS, expected, readReference, referenceBatch } from './checkpoint-helpers.js';
import { TINY_CROSS_ENCODER, maxDiff } from './helpers.js';
import { REFERENCE, T5_TOKENS } from './mt5-helpers.js';

describe('rerankers named by hub id', () => {
  let hub: HubStandIn;
  let app: App;
  let cache: string;

  beforeAll(async () => {
    hub = await HubStandIn.start();
    publishTinyModels(hub);
    cache = await mkdtemp(join(tmpdir(), 'hf-onnx-'));
    app = await createApp(
      {
        services: [
          {
            name: 'ce-hub',
            engine: 'CrossEncoderReranker',
            config: { model_path: CROSS_ENCODER_REPO },
          },
          {
            name: 'ce-local',
            engine: 'CrossEncoderReranker',
            config: { model_path: TINY_CROSS_ENCODER },
          },
          {
            name: 'mt5',
            engine: 'MT5Reranker',
            config: { model_name_or_path: T5_REPO, ...T5_TOKENS },
          },
          {
            name: 'mt5-merged',
            engine: 'MT5Reranker',
            config: {
              model_name_or_path: `${T5_REPO}@main`,
              decoder_file: 'onnx/decoder_model_merged.onnx',
              ...T5_TOKENS,
            },
          },
        ],
      },
      {
        logger: pino({ level: 'silent' }),
        engines: [CrossEncoderReranker, MT5Reranker],
        extras: false,
        interactive: false,
        cacheDir: join(cache, 'irserve'),
        env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache },
      },
    );
    await app.start();
  });
  afterAll(async () => {
    await app?.close();
    await hub?.close();
  });

  async function score(service: string, query: string, passages: string[]): Promise<number[]> {
    const reply = await app.http.inject({
      method: 'POST',
      url: '/score',
      payload: { service, query, passages },
    });
    expect(reply.statusCode).toBe(200);
    return reply.json<{ scores: number[] }>().scores;
  }

  it('a cross-encoder from an onnx/ folder scores as the same model from a local folder', async () => {
    const passages = ['a cat is a neural retrieval model', 'boil water with salt'];
    const fromHub = await score('ce-hub', 'what is a cat', passages);
    const local = await score('ce-local', 'what is a cat', passages);
    fromHub.forEach((value, i) => expect(value).toBeCloseTo(local[i]!, 6));
  });

  it("a seq2seq export's scores match the numpy reference, with either decoder", async () => {
    for (const service of ['mt5', 'mt5-merged'])
      for (const pair of REFERENCE.pairs.slice(0, 3)) {
        const [value] = await score(service, pair.query, [pair.passage]);
        expect(value).toBeCloseTo(pair.score, 4);
      }
  });

  it('names the models for irserve pull', () => {
    expect(CrossEncoderReranker.models({ model_name_or_path: CROSS_ENCODER_REPO })).toEqual([
      { reference: CROSS_ENCODER_REPO, kind: 'onnx', field: 'config.model_name_or_path' },
    ]);
    expect(
      MT5Reranker.models({ model_path: T5_REPO, encoder_file: 'onnx/encoder_model.onnx' }),
    ).toEqual([
      {
        reference: T5_REPO,
        kind: 'seq2seq',
        field: 'config.model_path',
        graphs: { encoder: 'onnx/encoder_model.onnx' },
      },
    ]);
  });

  it('only the files the engines use were fetched', () => {
    const fetched = hub.requests
      .filter((r) => r.method === 'HEAD' && r.url.includes('/resolve/'))
      .map((r) => decodeURIComponent(r.url.replace(/^.*\/resolve\/[^/]+\//, '')));
    expect(fetched).not.toContain('onnx/model_fp16.onnx');
    expect(fetched).not.toContain('onnx/decoder_with_past_model.onnx');
    expect(fetched.filter((f) => f === 'onnx/encoder_model.onnx')).toHaveLength(1);
  });
});

describe('a checkpoint repository (no ONNX export) by hub id', () => {
  it('fetches one weight format and builds the graph, matching the float64 reference', async () => {
    const hub = await HubStandIn.start();
    try {
      const files = filesOf(`${CHECKPOINTS}bert-sharded`);
      delete files['reference.json'];
      hub.publish('google-bert/tiny-sharded', {
        ...files,
        'pytorch_model.bin': Buffer.alloc(256, 1),
        'tf_model.h5': Buffer.alloc(256, 2),
      });
      const cache = await mkdtemp(join(tmpdir(), 'hf-checkpoint-'));
      const logger = pino({ level: 'silent' });
      const model = await createModelSource({
        configDir: cache,
        logger,
        interactive: false,
        env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache },
      }).resolve({ reference: 'google-bert/tiny-sharded', kind: 'onnx', field: 'model_path' });
      expect(model.format).toBe('checkpoint');
      expect(readdirSync(model.folder).sort()).toEqual([
        'config.json',
        'model-00001-of-00002.safetensors',
        'model-00002-of-00002.safetensors',
        'model.safetensors.index.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ]);
      const lease = await new SessionPool().acquire(model.folder, { head: 'hidden' });
      try {
        const ref = readReference('bert-sharded');
        const { last_hidden_state: got } = await lease.session.run(referenceBatch(ref), [
          'last_hidden_state',
        ]);
        expect(maxDiff(got!.data, expected(ref, 'hidden'))).toBeLessThan(1e-4);
      } finally {
        await lease.release();
      }
    } finally {
      await hub.close();
    }
  });
});
