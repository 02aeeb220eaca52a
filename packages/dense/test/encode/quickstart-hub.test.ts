/**
 * The quickstart's hub-model example, as its README runs it: the two models named by hub id
 * (published to a local hub stand-in, with the tiny test models under the real names),
 * `irserve-encode --model <hub id>`, `irserve-build-index`, then the config served and its
 * pipeline `{bm25, dense}RRF%50 >> rerank` answered.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from 'irserve';
import { CrossEncoderReranker } from '@irserve/onnx';
import { HubStandIn } from '../../../irserve/test/helpers/hub-stand-in.js';
import { ONNX_MODELS, filesOf } from '../../../irserve/test/helpers/hub-models.js';
import { main as buildMain } from '../../src/build/cli.js';
import { main as encodeMain } from '../../src/encode/cli.js';
import { Dense } from '../../src/index.js';

const QUICKSTART = fileURLToPath(new URL('../../../../examples/quickstart/', import.meta.url));
const silentIo = { out: () => {}, err: () => {}, interactive: false };

describe('the quickstart hub-model example', () => {
  let hub: HubStandIn;
  beforeAll(async () => {
    hub = await HubStandIn.start();
    hub.publish('sentence-transformers/all-MiniLM-L6-v2', filesOf(join(ONNX_MODELS, 'tiny-bert')));
    hub.publish(
      'cross-encoder/ms-marco-MiniLM-L6-v2',
      filesOf(join(ONNX_MODELS, 'tiny-cross-encoder'), 'onnx'),
    );
    const dir = await mkdtemp(join(tmpdir(), 'quickstart-hub-'));
    vi.stubEnv('HF_ENDPOINT', hub.endpoint);
    vi.stubEnv('HF_HUB_CACHE', join(dir, 'hf'));
    vi.stubEnv('HF_HUB_OFFLINE', '');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await hub?.close();
  });

  // Encodes the whole Cranfield collection (1,400 documents): a minute on a busy machine.
  it(
    'encodes, indexes and serves with the models named by hub id',
    { timeout: 90_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'quickstart-hub-run-'));
      const config = JSON.parse(await readFile(join(QUICKSTART, 'hub-model.json'), 'utf8')) as {
        collections: { views: { text: { source: { doc_path: string } } } }[];
        services: { name: string; config: Record<string, unknown> }[];
      };
      const source = config.collections[0]!.views.text.source;
      source.doc_path = join(QUICKSTART, source.doc_path);
      const dense = config.services.find((s) => s.name === 'dense')!;
      expect((dense.config.encoder as { model_path: string }).model_path).toBe(
        'sentence-transformers/all-MiniLM-L6-v2',
      );
      dense.config.index_path = join(dir, 'index');
      await writeFile(join(dir, 'hub-model.json'), JSON.stringify(config));
      const shards = join(dir, 'shards');
      const encode = [
        '--config',
        join(dir, 'hub-model.json'),
        '--collection',
        'cranfield',
        shards,
        '--model',
        'sentence-transformers/all-MiniLM-L6-v2',
      ];
      expect(await encodeMain(encode, silentIo)).toBe(0);
      expect(await buildMain([shards, join(dir, 'index')], silentIo)).toBe(0);
      const app = await createApp(config, {
        logger: pino({ level: 'silent' }),
        engines: [Dense, CrossEncoderReranker],
        extras: false,
        interactive: false,
        configDir: dir,
      });
      try {
        await app.start();
        const reply = await app.http.inject({
          method: 'POST',
          url: '/pipeline',
          payload: {
            pipeline: '{bm25, dense}RRF%50 >> rerank',
            collection: 'cranfield',
            query: 'heat conduction in composite slabs',
          },
        });
        expect(reply.statusCode).toBe(200);
        expect(Object.keys(reply.json<{ scores: Record<string, number> }>().scores)).toHaveLength(
          50,
        );
      } finally {
        await app.close();
      }
    },
  );
});
