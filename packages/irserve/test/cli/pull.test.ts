/**
 * `irserve pull`: hub ids and configs (through each engine's static `models`), the newest
 * commit of a revision, local paths left alone, and `--offline` as a check of the cache.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { HubStandIn } from '../helpers/hub-stand-in.js';
import { GGUF_REPO, TINY_BERT_REPO, publishTinyModels } from '../helpers/hub-models.js';

let hub: HubStandIn;
beforeAll(async () => {
  hub = await HubStandIn.start();
  publishTinyModels(hub);
});
afterAll(() => hub.close());

/** Runs `irserve ...args` in process; returns the exit code and what it printed. */
async function irserve(args: string[], env: NodeJS.ProcessEnv) {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await main([...args, '--log-format', 'json'], env);
    return { code, output: lines.join('\n') };
  } finally {
    log.mockRestore();
    write.mockRestore();
  }
}

/** A plugin whose engine names two models, one by hub id and one by local path. */
const PLUGIN = `
export class TwoModels {
  static models(config) {
    return [
      { reference: config.model, kind: 'onnx', field: 'config.model' },
      { reference: config.local, kind: 'onnx', field: 'config.local' },
    ];
  }
  async searchBatch(requests) { return requests.map(() => ({})); }
}
`;

describe('irserve pull', () => {
  it('fetches hub ids into the cache and prints the commit and folder of each', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'hf-pull-'));
    const env = { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: cache };
    const run = await irserve(['pull', TINY_BERT_REPO, `${GGUF_REPO}:Q8_0`], env);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(
      /^sentence-transformers\/tiny-bert \(commit [0-9a-f]{12}\) onnx downloaded to \S+models--sentence-transformers--tiny-bert\/snapshots\/[0-9a-f]{40}/m,
    );
    expect(run.output).toMatch(
      /ggml-org\/tiny-embed-GGUF:Q8_0 \(commit [0-9a-f]{12}\) gguf downloaded to \S+tiny-embed-Q8_0\.gguf/,
    );
    // Offline, pull checks the cache: all there, no request.
    hub.requests.length = 0;
    const check = await irserve(['pull', '--offline', TINY_BERT_REPO], env);
    expect(check.code).toBe(0);
    expect(check.output).toMatch(/onnx cached in/);
    expect(hub.requests).toEqual([]);
  });

  it('fetches the models a config names; a local path is left alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-pull-config-'));
    await writeFile(join(dir, 'two-models.mjs'), PLUGIN);
    const config = {
      file_imports: ['two-models.mjs'],
      services: [
        {
          name: 'two',
          engine: 'TwoModels',
          config: { model: `${TINY_BERT_REPO}/onnx/model_quantized.onnx`, local: '.' },
        },
      ],
    };
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
    const cache = join(dir, 'hf');
    const run = await irserve(['pull', join(dir, 'config.json')], {
      HF_ENDPOINT: hub.endpoint,
      HF_HUB_CACHE: cache,
    });
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/service "two": \. is the local path /);
    expect(run.output).toMatch(
      /service "two": sentence-transformers\/tiny-bert\/onnx\/model_quantized\.onnx/,
    );
    const repo = join(cache, 'models--sentence-transformers--tiny-bert');
    const commit = readFileSync(join(repo, 'refs', 'main'), 'utf8');
    expect(existsSync(join(repo, 'snapshots', commit, 'onnx', 'model_quantized.onnx'))).toBe(true);
  });

  it('offline with a model missing: exit 1 naming the model and the command to run', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'hf-pull-offline-'));
    const run = await irserve(['pull', '--offline', 'org/absent@v2'], {
      HF_ENDPOINT: hub.endpoint,
      HF_HUB_CACHE: cache,
    });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(
      /org\/absent@v2 is not in the Hugging Face cache and irserve runs offline .*irserve pull org\/absent@v2/,
    );
  });

  it('a bad --kind is a usage error', async () => {
    const run = await irserve(['pull', '--kind', 'pytorch', 'org/x'], {});
    expect(run.code).toBe(2);
  });
});
