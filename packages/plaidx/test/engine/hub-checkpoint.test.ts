/**
 * PLAIDX's `checkpoint` named by hub id: the tiny ColBERT export is published to a local hub
 * stand-in, fetched into a Hugging Face cache, and encodes queries as the torch model did.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineContext } from 'irserve/testing';
import { HubStandIn } from '../../../irserve/test/helpers/hub-stand-in.js';
import { filesOf } from '../../../irserve/test/helpers/hub-models.js';
import { onnxColbertEncoder } from '../../src/engine/onnx-encoder.js';
import { PLAIDX } from '../../src/index.js';
import { FIXTURES } from '../helpers.js';

const CHECKPOINT = `${FIXTURES}colbert-onnx`;
const REPO = 'hltcoe/tiny-colbert-onnx';

describe('PLAIDX checkpoint from the hub', () => {
  let hub: HubStandIn;

  beforeAll(async () => {
    hub = await HubStandIn.start();
    const files = filesOf(CHECKPOINT);
    delete files['expected.json'];
    hub.publish(REPO, { ...files, 'model.safetensors': Buffer.alloc(64) });
  });
  afterAll(() => hub?.close());

  it('names its checkpoint for irserve pull', () => {
    expect(PLAIDX.models({ index_path: 'i', checkpoint: REPO })).toEqual([
      { reference: REPO, kind: 'onnx', field: 'config.checkpoint' },
    ]);
  });

  it('encodes queries as the torch model', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plaidx-hub-'));
    const context = engineContext({
      configDir: dir,
      env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: join(dir, 'hf') },
    });
    const encoder = await onnxColbertEncoder(
      { checkpoint: REPO, batchSize: 2, windowSize: 180, windowStride: 90, threads: 1 },
      context,
    );
    try {
      const expected = JSON.parse(await readFile(`${CHECKPOINT}/expected.json`, 'utf8')) as {
        queries: { text: string; vectors: number[][] }[];
      };
      const [matrix] = await encoder.encodeQueries([expected.queries[0]!.text]);
      expected.queries[0]!.vectors.flat().forEach((v, i) =>
        expect(matrix!.vectors[i]).toBeCloseTo(v, 4),
      );
    } finally {
      await encoder.close();
    }
    expect(hub.requests.some((r) => r.url.includes('safetensors'))).toBe(false);
  });
});
