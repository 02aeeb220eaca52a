/**
 * Dense and SentenceTransformerEngine with a hub id for the model: the tiny encoder is
 * published to a local hub stand-in as a sentence-transformers repository (`onnx/` graph,
 * prompts in config_sentence_transformers.json), fetched into a Hugging Face cache, and
 * searched with the repository's prompts; then served offline from that cache with no request.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { Dense, SentenceTransformerEngine } from '../../src/index.js';
import { HubStandIn } from '../../../irserve/test/helpers/hub-stand-in.js';
import { TINY_BERT_REPO, publishTinyModels } from '../../../irserve/test/helpers/hub-models.js';
import { DOCS, TINY_BERT, embedDirect, localWorld, type LocalWorld } from './local-world.js';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : undefined;
const HF_CACHE_SCRIPT = fileURLToPath(
  new URL('../../../irserve/test/models/fixtures/hf_cache.py', import.meta.url),
);

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}

async function appWith(services: unknown[], env: NodeJS.ProcessEnv, dir: string): Promise<App> {
  const app = await createApp(
    { services },
    {
      logger: pino({ level: 'silent' }),
      engines: [Dense, SentenceTransformerEngine],
      extras: false,
      interactive: false,
      configDir: dir,
      cacheDir: join(dir, 'cache'),
      env,
    },
  );
  await app.start();
  return app;
}

/** The ranking tiny-bert gives `query` (with E5-style prompts) over DOCS, computed directly. */
async function expectedRanking(query: string) {
  const [vector] = await embedDirect([`query: ${query}`]);
  const passages = await embedDirect(DOCS.map((d) => `passage: ${d.text}`));
  return DOCS.map((d, i) => [d.id, dot(vector!, passages[i]!)] as const).sort(
    (a, b) => b[1] - a[1],
  );
}

async function search(app: App, service: string, query: string) {
  const reply = await app.http.inject({
    method: 'POST',
    url: '/search',
    payload: { service, query, limit: 5 },
  });
  expect(reply.statusCode).toBe(200);
  return Object.entries(reply.json().scores as Record<string, number>).sort((a, b) => b[1] - a[1]);
}

describe('Dense with a hub id', () => {
  let hub: HubStandIn;
  let world: LocalWorld;

  beforeAll(async () => {
    hub = await HubStandIn.start();
    publishTinyModels(hub);
    world = await localWorld();
  });
  afterAll(async () => {
    await hub?.close();
    await world?.close();
  });

  it('fetches the model, uses its sentence-transformers prompts, ranks as the local model', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'hf-dense-'));
    const app = await appWith(
      [
        {
          name: 'dense',
          engine: 'Dense',
          config: { index_path: world.indexDir, encoder: { model_path: TINY_BERT_REPO } },
        },
        {
          name: 'st',
          engine: 'SentenceTransformerEngine',
          config: { index_path: world.indexDir, embedding_model_name: TINY_BERT_REPO },
        },
      ],
      { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache },
      world.dir,
    );
    try {
      const expected = await expectedRanking('how do i cook pasta');
      for (const service of ['dense', 'st']) {
        const got = await search(app, service, 'how do i cook pasta');
        expect(got.map(([id]) => id)).toEqual(expected.map(([id]) => id));
        got.forEach(([, score], i) => expect(score).toBeCloseTo(expected[i]![1], 4));
      }
    } finally {
      await app.close();
    }
  });

  it('names its model for irserve pull', () => {
    expect(Dense.models({ index_path: 'i', encoder: { model_path: TINY_BERT_REPO } })).toEqual([
      { reference: TINY_BERT_REPO, kind: 'onnx', field: 'config.encoder.model_path' },
    ]);
    expect(
      Dense.models({ index_path: 'i', embedding_base_url: 'http://x', embedding_model_name: 'm' }),
    ).toEqual([]);
    expect(
      SentenceTransformerEngine.models({ index_path: 'i', embedding_model_name: TINY_BERT_REPO }),
    ).toEqual([{ reference: TINY_BERT_REPO, kind: 'onnx', field: 'config.embedding_model_name' }]);
  });

  it.runIf(PYTHON ?? process.env.CI)(
    'serves a model Python cached, offline, without a request',
    async () => {
      if (!PYTHON) throw new Error('CI needs /usr/bin/python3');
      const cache = await mkdtemp(join(tmpdir(), 'hf-dense-python-'));
      await promisify(execFile)(PYTHON, [
        HF_CACHE_SCRIPT,
        'write',
        cache,
        'org/cached-bert',
        'main',
        'feed000000000000000000000000000000000001',
        TINY_BERT,
      ]);
      hub.requests.length = 0;
      const app = await appWith(
        [
          {
            name: 'dense',
            engine: 'Dense',
            config: {
              index_path: world.indexDir,
              encoder: { model_path: 'org/cached-bert', query_prompt: 'query: {query}' },
            },
          },
        ],
        { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache, HF_HUB_OFFLINE: '1' },
        world.dir,
      );
      try {
        const got = await search(app, 'dense', 'a cat model');
        expect(got.map(([id]) => id)).toEqual(
          (await expectedRanking('a cat model')).map(([id]) => id),
        );
        expect(hub.requests).toEqual([]);
      } finally {
        await app.close();
      }
    },
  );
});
