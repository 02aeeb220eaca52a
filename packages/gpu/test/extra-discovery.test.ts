/**
 * Installing @irserve/gpu beside irserve (and the other extras) is all it takes: the core finds
 * it in node_modules and registers GgufEmbedding and GgufReranker. Loads the compiled package.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { TINY_RERANK, gpuWorld, post, type GpuWorld } from './helpers.js';

describe('@irserve/gpu as an installed extra', () => {
  let world: GpuWorld;
  let app: App;

  beforeAll(async () => {
    world = await gpuWorld();
    app = await createApp(
      {
        collections: [world.collection],
        services: [
          {
            name: 'rerank',
            engine: 'GgufReranker',
            config: { model_path: TINY_RERANK, device: 'cpu', llama_threads: 1, max_length: 256 },
          },
          {
            name: 'dense',
            engine: 'Dense',
            config: {
              index_path: world.indexDir,
              embedding_base_url: 'http://127.0.0.1:9/v1',
              embedding_model_name: 'x',
            },
          },
        ],
      },
      {
        logger: pino({ level: 'silent' }),
        interactive: false,
        configDir: world.dir,
        cacheDir: join(world.dir, 'cache'),
      },
    );
    await app.start();
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('serves a GgufReranker declared only in the config, beside the dense extra', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.score).toContain('rerank');
    expect(avail.search).toContain('dense');
    const { status, body } = await post(app, '/score', {
      service: 'rerank',
      query: 'jet engines',
      passages: ['turbine thrust', 'wing flutter'],
    });
    expect(status).toBe(200);
    expect(body.scores).toHaveLength(2);
  });
});
