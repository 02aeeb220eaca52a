/**
 * The GGUF engines with hub ids: a quantisation picked from a repository of several
 * (`org/name:Q8_0`, Q8_0 by default) and a file named by path, fetched from a local hub
 * stand-in into a Hugging Face cache and run on llama.cpp's CPU backend.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { HubStandIn } from '../../irserve/test/helpers/hub-stand-in.js';
import {
  GGUF_REPO,
  GGUF_RERANK_REPO,
  publishTinyModels,
} from '../../irserve/test/helpers/hub-models.js';
import { GgufEmbedding, GgufReranker } from '../src/index.js';
import { DOCS, embedDirect, gpuWorld, post, silent, type GpuWorld } from './helpers.js';

describe('GGUF engines named by hub id', () => {
  let hub: HubStandIn;
  let world: GpuWorld;
  let app: App;

  beforeAll(async () => {
    hub = await HubStandIn.start();
    publishTinyModels(hub);
    world = await gpuWorld();
    const cpu = { device: 'cpu', max_length: 512, llama_threads: 1 };
    app = await createApp(
      {
        services: [
          {
            name: 'embed',
            engine: 'GgufEmbedding',
            config: { index_path: world.indexDir, model_name_or_path: GGUF_REPO, ...cpu },
          },
          {
            name: 'rerank',
            engine: 'GgufReranker',
            config: { model_path: `${GGUF_RERANK_REPO}/tiny-rerank.gguf`, ...cpu },
          },
        ],
      },
      {
        logger: silent,
        engines: [GgufEmbedding, GgufReranker],
        extras: false,
        interactive: false,
        configDir: world.dir,
        cacheDir: join(world.dir, 'cache'),
        env: {
          HF_ENDPOINT: hub.endpoint,
          HF_HUB_CACHE: await mkdtemp(join(tmpdir(), 'hf-gguf-')),
        },
      },
    );
    await app.start();
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
    await hub?.close();
  });

  it('serves the Q8_0 file of a repository of quantisations, and nothing else of it', async () => {
    const passages = DOCS.slice(0, 2).map((d) => d.text);
    const { status, body } = await post(app, '/score', {
      service: 'embed',
      query: 'jet engines',
      passages,
    });
    expect(status).toBe(200);
    const [query, ...vectors] = await embedDirect(['jet engines', ...passages]);
    vectors.forEach((v, i) => {
      expect(body.scores[i]).toBeCloseTo(
        v.reduce((sum, x, j) => sum + x * query![j]!, 0),
        4,
      );
    });
    const heads = hub.requests.filter((r) => r.method === 'HEAD').map((r) => r.url);
    expect(heads.some((url) => url.endsWith('tiny-embed-Q8_0.gguf'))).toBe(true);
    expect(heads.some((url) => url.includes('F16'))).toBe(false);
  });

  it('names the models for irserve pull', () => {
    expect(GgufEmbedding.models({ index_path: 'i', model_path: `${GGUF_REPO}:Q8_0` })).toEqual([
      { reference: `${GGUF_REPO}:Q8_0`, kind: 'gguf', field: 'config.model_path' },
    ]);
    expect(GgufReranker.models({ model_name_or_path: GGUF_RERANK_REPO })).toEqual([
      { reference: GGUF_RERANK_REPO, kind: 'gguf', field: 'config.model_name_or_path' },
    ]);
  });

  it('a reranker GGUF named by its file scores', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'rerank',
      query: 'jet engines',
      passages: [DOCS[0].text],
    });
    expect(status).toBe(200);
    expect(body.scores).toHaveLength(1);
  });
});
