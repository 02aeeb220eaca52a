/**
 * LSR's in-process query encoder named by hub id (`model_name`): the tiny SPLADE model is
 * published to a local hub stand-in with its graph at the root (fastembed's SPLADE layout),
 * fetched into a Hugging Face cache, and ranks exactly as the same model from its folder.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { HubStandIn } from '../../../irserve/test/helpers/hub-stand-in.js';
import { filesOf } from '../../../irserve/test/helpers/hub-models.js';
import { buildSparseIndex } from '../../src/build/build-index.js';
import { LSR } from '../../src/index.js';
import { post } from '../helpers/app.js';

const MODEL = fileURLToPath(new URL('../fixtures/tiny-splade', import.meta.url));
const REPO = 'prithivida/tiny-splade';
const silent = pino({ level: 'silent' });

describe('LSR with a hub id for model_name', () => {
  let hub: HubStandIn;
  let app: App;

  beforeAll(async () => {
    hub = await HubStandIn.start();
    hub.publish(REPO, { ...filesOf(MODEL), 'pytorch_model.bin': Buffer.alloc(64) });
    const dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-hub-'));
    const docs = [
      { the: 1.2, quick: 0.8, fox: 1.5 },
      { cook: 1.1, pasta: 1.9, water: 0.4 },
      { neural: 1.3, retrieval: 1.6 },
    ];
    await writeFile(
      join(dir, 'encoded.jsonl'),
      docs.map((vector, i) => JSON.stringify({ id: `doc${i}`, vector })).join('\n'),
    );
    await buildSparseIndex({
      input: join(dir, 'encoded.jsonl'),
      outputDir: join(dir, 'index'),
      logger: silent,
    });
    const config = { index_path: 'index', max_length: 64, max_terms: 40 };
    app = await createApp(
      {
        services: [
          { name: 'local', engine: 'LSR', config: { ...config, model_name: MODEL } },
          { name: 'hub', engine: 'LSR', config: { ...config, model_name: REPO } },
        ],
      },
      {
        logger: silent,
        engines: [LSR],
        extras: false,
        interactive: false,
        configDir: dir,
        cacheDir: join(dir, 'cache'),
        env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: join(dir, 'hf') },
      },
    );
    await app.start();
  });
  afterAll(async () => {
    await app?.close();
    await hub?.close();
  });

  it('names its model for irserve pull (the in-process encoder only)', () => {
    expect(LSR.models({ index_path: 'i', model_name: REPO })).toEqual([
      { reference: REPO, kind: 'onnx', field: 'config.model_name' },
    ]);
    expect(LSR.models({ index_path: 'i' })).toEqual([]);
  });

  it('ranks as the model from its folder', async () => {
    for (const query of ['how do i cook pasta', 'neural retrieval of the fox']) {
      const local = await post(app, '/search', { service: 'local', query, limit: 3 });
      const fromHub = await post(app, '/search', { service: 'hub', query, limit: 3 });
      expect(fromHub.status).toBe(200);
      expect(Object.keys(local.body.scores).length).toBeGreaterThan(0);
      expect(Object.entries(fromHub.body.scores)).toEqual(Object.entries(local.body.scores));
    }
    expect(hub.requests.some((r) => r.url.includes('pytorch_model'))).toBe(false);
  });
});
