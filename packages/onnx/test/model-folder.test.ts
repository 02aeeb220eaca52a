import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionPool, loadModelFolder } from '@irserve/onnx';
import { KV_CACHE, TINY_BERT, TINY_CROSS_ENCODER } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'irserve-onnx-folder-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of tiny-bert with `change` applied. */
function variant(name: string, change: (dir: string) => void): string {
  const dir = join(scratch, name);
  cpSync(TINY_BERT, dir, { recursive: true });
  change(dir);
  return dir;
}

describe('loadModelFolder', () => {
  it('reads the sentence-transformers files: pooling, Normalize, max_seq_length', async () => {
    const folder = await loadModelFolder(TINY_BERT);
    expect(folder.modelFile).toBe(join(TINY_BERT, 'model.onnx'));
    expect(folder.pooling).toBe('mean');
    expect(folder.normalize).toBe(true);
    expect(folder.maxLength).toBe(128);
    expect(folder.config.model_type).toBe('bert');
  });

  it('falls back to the tokenizer config for max_length and to nothing for pooling', async () => {
    const folder = await loadModelFolder(TINY_CROSS_ENCODER);
    expect(folder.maxLength).toBe(512);
    expect(folder.pooling).toBeUndefined();
    expect(folder.normalize).toBeUndefined();
  });

  it('finds onnx/model.onnx (the Optimum layout) and onnx_config.json overrides', async () => {
    const dir = variant('optimum', (d) => {
      mkdirSync(join(d, 'onnx'));
      cpSync(join(d, 'model.onnx'), join(d, 'onnx', 'model.onnx'));
      rmSync(join(d, 'model.onnx'));
      writeFileSync(
        join(d, 'onnx_config.json'),
        JSON.stringify({ pooling: 'cls', max_length: 7, dim: 32 }),
      );
    });
    const folder = await loadModelFolder(dir);
    expect(folder.modelFile).toBe(join(dir, 'onnx', 'model.onnx'));
    expect(folder.pooling).toBe('cls');
    expect(folder.maxLength).toBe(7);
    expect(folder.onnxConfig.dim).toBe(32);
  });

  it('reads the sentence-transformers prompts and the Pooling module modules.json names', async () => {
    expect((await loadModelFolder(TINY_BERT)).prefixes).toEqual({});
    const dir = variant('prompts', (d) => {
      writeFileSync(
        join(d, 'config_sentence_transformers.json'),
        JSON.stringify({
          prompts: { query: 'Instruct: find passages\nQuery:', document: '' },
          default_prompt_name: null,
        }),
      );
      // A Pooling module kept elsewhere than 1_Pooling, with CLS pooling.
      const modules = JSON.parse(readFileSync(join(d, 'modules.json'), 'utf8')) as {
        path: string;
      }[];
      modules[1]!.path = 'pool';
      writeFileSync(join(d, 'modules.json'), JSON.stringify(modules));
      mkdirSync(join(d, 'pool'));
      writeFileSync(join(d, 'pool', 'config.json'), '{"pooling_mode_cls_token": true}');
    });
    const folder = await loadModelFolder(dir);
    expect(folder.prefixes).toEqual({ query: 'Instruct: find passages\nQuery:', passage: '' });
    expect(folder.pooling).toBe('cls');
    expect(folder.normalize).toBe(true);
    const passageKey = variant('passage-prompt', (d) => {
      writeFileSync(
        join(d, 'config_sentence_transformers.json'),
        '{"prompts": {"query": "search_query: ", "passage": "search_document: "}}',
      );
      writeFileSync(join(d, 'onnx_config.json'), '{"query_prefix": "q: "}');
    });
    expect((await loadModelFolder(passageKey)).prefixes).toEqual({
      query: 'q: ',
      passage: 'search_document: ',
    });
  });

  it.each([
    ['a missing folder', () => join(scratch, 'nope'), /does not exist.*nothing is downloaded/],
    ['a file', () => join(TINY_BERT, 'config.json'), /is not a directory/],
    [
      'no graph',
      () => variant('no-graph', (d) => rmSync(join(d, 'model.onnx'))),
      /no model\.onnx or onnx\/model\.onnx/,
    ],
    [
      'no tokenizer',
      () => variant('no-tok', (d) => rmSync(join(d, 'tokenizer.json'))),
      /tokenizer\.json is missing/,
    ],
    [
      'bad JSON',
      () => variant('bad-json', (d) => writeFileSync(join(d, 'config.json'), '{oops')),
      /config\.json is not valid JSON/,
    ],
    [
      'an array tokenizer',
      () => variant('array-tok', (d) => writeFileSync(join(d, 'tokenizer.json'), '[]')),
      /must hold a JSON object/,
    ],
    [
      'a tokenizer.json of another shape (a vocabulary dump)',
      () =>
        variant('vocab-tok', (d) =>
          writeFileSync(join(d, 'tokenizer.json'), '{"vocab": {"[PAD]": 0}, "merges": []}'),
        ),
      /tokenizer\.json has no "model" object: expected the fast tokenizer file .*save_pretrained.* found the keys "vocab", "merges"/,
    ],
    [
      'a bad onnx_config value',
      () =>
        variant('bad-cfg', (d) =>
          writeFileSync(join(d, 'onnx_config.json'), '{"pooling":"median"}'),
        ),
      /onnx_config\.json: pooling/,
    ],
  ])('%s is an ERR_CONFIG naming the folder', async (_, makePath, message) => {
    const path = makePath();
    await expect(loadModelFolder(path)).rejects.toMatchObject({ code: 'ERR_CONFIG', message });
    await expect(loadModelFolder(path)).rejects.toThrow(/model folder /);
  });
});

describe('SessionPool: graphs that are not models', () => {
  const pool = new SessionPool();

  it('a model.onnx that is not ONNX is an ERR_CONFIG at load', async () => {
    const dir = variant('garbage', (d) => writeFileSync(join(d, 'model.onnx'), 'not a protobuf'));
    await expect(pool.acquire(dir)).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(/ONNX Runtime cannot load the graph/),
    });
    expect(pool.size).toBe(0);
  });

  it('a graph wanting past key values names the input it cannot fill', async () => {
    await expect(pool.acquire(KV_CACHE)).rejects.toThrow(/past_key_values\.0\.key/);
    expect(pool.size).toBe(0);
  });

  it('bad session options are refused', async () => {
    await expect(pool.acquire(TINY_BERT, { intra_op_threads: -1 })).rejects.toThrow();
    await expect(
      pool.acquire(TINY_BERT, { execution_providers: ['no-such-provider'] }),
    ).rejects.toMatchObject({
      code: 'ERR_CONFIG',
    });
  });
});
