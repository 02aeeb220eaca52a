/**
 * One cache for Python and irserve: a cache written in huggingface_hub's layout by a Python
 * script (Debian's python3, the layout by hand: Debian does not package huggingface_hub) is
 * served without a single request, and a model irserve downloaded is found by Python's lookup.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelResolver } from '../../src/models/model-resolver.js';
import { HubStandIn } from '../helpers/hub-stand-in.js';
import { ONNX_MODELS, TINY_BERT_REPO, publishTinyModels } from '../helpers/hub-models.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./fixtures/hf_cache.py', import.meta.url));
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : undefined;
const COMMIT = 'c0ffee0000000000000000000000000000000001';

let hub: HubStandIn;
beforeAll(async () => {
  hub = await HubStandIn.start();
  publishTinyModels(hub);
});
afterAll(() => hub.close());

async function resolverOn(cache: string, env: NodeJS.ProcessEnv = {}) {
  return ModelResolver.create({
    logger: pino({ level: 'silent' }),
    interactive: false,
    env: { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache, ...env },
  });
}

describe.runIf(PYTHON ?? process.env.CI)('the Hugging Face cache shared with Python', () => {
  it('a model Python cached is served without a request, online or offline', async () => {
    if (!PYTHON) throw new Error('CI needs /usr/bin/python3');
    const cache = mkdtempSync(join(tmpdir(), 'hf-python-'));
    const source = join(ONNX_MODELS, 'tiny-bert');
    await run(PYTHON, [SCRIPT, 'write', cache, 'org/python-bert', 'main', COMMIT, source]);
    hub.requests.length = 0;
    for (const env of [{}, { HF_HUB_OFFLINE: '1' }]) {
      const model = await (
        await resolverOn(cache, env)
      ).resolve({
        reference: 'org/python-bert',
        kind: 'onnx',
        field: 'config.model_path',
      });
      expect(model).toMatchObject({ source: 'cache', commit: COMMIT });
      expect(readFileSync(join(model.folder, 'model.onnx'))).toEqual(
        readFileSync(join(source, 'model.onnx')),
      );
    }
    expect(hub.requests).toEqual([]);
  });

  it('a model irserve downloaded is found by Python', async () => {
    if (!PYTHON) throw new Error('CI needs /usr/bin/python3');
    const cache = mkdtempSync(join(tmpdir(), 'hf-irserve-'));
    const model = await (
      await resolverOn(cache)
    ).resolve({
      reference: TINY_BERT_REPO,
      kind: 'onnx',
      field: 'config.model_path',
    });
    for (const file of ['onnx/model.onnx', 'tokenizer.json', '1_Pooling/config.json']) {
      const { stdout } = await run(PYTHON, [SCRIPT, 'read', cache, TINY_BERT_REPO, 'main', file]);
      const [path, digest] = stdout.trim().split(' ');
      expect(path).toBe(join(model.folder, file));
      expect(digest).toBe(
        createHash('sha256')
          .update(readFileSync(join(model.folder, file)))
          .digest('hex'),
      );
    }
  });
});
