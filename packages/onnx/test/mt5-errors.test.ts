import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { MT5Reranker, SessionPool, Seq2SeqModel, predictionTokens } from '@irserve/onnx';
import { post, startApp } from './app-helpers.js';
import { KV_CACHE, TINY_BERT, TINY_CROSS_ENCODER, TINY_T5 } from './helpers.js';
import { REFERENCE, T5_TOKENS, t5Variant } from './mt5-helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'irserve-mt5-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const start = (config: Record<string, unknown>) =>
  startApp({ services: [{ name: 'mt5', engine: 'MT5Reranker', config }] }, scratch, [MT5Reranker]);
/** Start-up fails with `message`, an ERR_CONFIG (itself, or as the cause of "failed to start"). */
async function refused(config: Record<string, unknown>, message: RegExp): Promise<void> {
  const error = (await start(config).then(
    (app) => app.close(),
    (e: unknown) => e,
  )) as { message: string; code?: string; cause?: { code?: string } } | undefined;
  expect(error?.message).toMatch(message);
  expect(error?.cause?.code ?? error?.code).toBe('ERR_CONFIG');
}
const withTokens = (config: Record<string, unknown>) => ({ ...T5_TOKENS, ...config });

describe('MT5Reranker config errors', () => {
  it.each([
    [{}, /model_name_or_path: give the model folder/],
    [{ model_path: 'a', model_name_or_path: 'b' }, /model_name_or_path: give the model folder/],
    [
      { model_path: TINY_T5, token_false: '▁false' },
      /token_true: give token_false and token_true together/,
    ],
    [
      { model_path: TINY_T5, q_max_lenght: 3 },
      /q_max_lenght: unknown key \(did you mean "q_max_length"\?\)/,
    ],
    [{ model_path: TINY_T5, d_max_length: 0 }, /d_max_length/],
    [{ model_path: TINY_T5, batch_size: 1e9 }, /batch_size/],
    [{ model_path: TINY_T5, use_gpu: 'yes' }, /use_gpu/],
    [
      { model_path: TINY_T5, use_gpu: true, device: 'cpu' },
      /use_gpu: give use_gpu \(RoutIR\) or device/,
    ],
    [
      { model_path: TINY_T5, prompt: 'Query: {query} Relevant:' },
      /prompt: must contain \{query\} once and \{document\}/,
    ],
    [{ model_path: TINY_T5, prompt: '{query} {passage} {document}' }, /got 1 and 2/],
    [{ model_path: ['x'] }, /model_path/],
    [
      { model_path: TINY_T5, upstream_service: { engine: 'BM25', config: {} } },
      /upstream_service: is RoutIR's way to make a reranker search .* "bm25%100 >> mt5"/,
    ],
    [{ model_path: TINY_T5, rerank_multiplier: 5 }, /rerank_multiplier: is RoutIR's way/],
  ])('%j is refused at start-up', async (config, message) => {
    await refused(config, message);
  });
});

describe('MT5Reranker model folder errors', () => {
  it.each([
    [
      'a missing folder',
      () => join(scratch, 'nope'),
      /config\.model_path: no file or folder at \S*nope$/,
    ],
    ['a file', () => join(TINY_T5, 'config.json'), /is not a directory/],
    [
      'no encoder',
      () => t5Variant(join(scratch, 'no-enc'), ['encoder_model.onnx']),
      /no encoder graph: looked for encoder_model.onnx, onnx\/encoder_model.onnx/,
    ],
    [
      'no decoder',
      () => t5Variant(join(scratch, 'no-dec'), ['decoder_model.onnx', 'decoder_model_merged.onnx']),
      /no decoder graph: looked for decoder_model.onnx, decoder_model_merged.onnx/,
    ],
    [
      'no tokenizer.json',
      () => t5Variant(join(scratch, 'no-tok'), ['tokenizer.json']),
      /tokenizer.json is missing \(a seq2seq model folder/,
    ],
    [
      'no config.json',
      () => t5Variant(join(scratch, 'no-config'), ['config.json']),
      /config.json is missing/,
    ],
    [
      'no decoder_start_token_id',
      () => t5Variant(join(scratch, 'no-start'), [], (c) => delete c.decoder_start_token_id),
      /config.json has no decoder_start_token_id/,
    ],
    [
      'a bad decoder_start_token_id',
      () => t5Variant(join(scratch, 'bad-start'), [], (c) => (c.decoder_start_token_id = '0')),
      /decoder_start_token_id .* got "0"/,
    ],
    [
      'a tokenizer.json that is not JSON',
      () => {
        const dir = t5Variant(join(scratch, 'bad-tok'));
        writeFileSync(join(dir, 'tokenizer.json'), '{"model":');
        return dir;
      },
      /tokenizer.json is not valid JSON/,
    ],
    [
      'an encoder that is not ONNX',
      () => {
        const dir = t5Variant(join(scratch, 'not-onnx'));
        writeFileSync(join(dir, 'encoder_model.onnx'), 'not a graph');
        return dir;
      },
      /ONNX Runtime cannot load the graph/,
    ],
  ])('%s is an ERR_CONFIG naming the folder', async (_, makePath, message) => {
    await refused(withTokens({ model_path: makePath() }), message);
  });

  it('finds the graphs under onnx/, with a merged decoder alone', async () => {
    const dir = t5Variant(join(scratch, 'layout'), ['decoder_model.onnx']);
    mkdirSync(join(dir, 'onnx'));
    for (const file of ['encoder_model.onnx', 'decoder_model_merged.onnx'])
      renameSync(join(dir, file), join(dir, 'onnx', file));
    const lease = await new SessionPool().acquireSeq2Seq(dir);
    try {
      expect(lease.model).toBeInstanceOf(Seq2SeqModel);
      const model = lease.model as Seq2SeqModel;
      expect(model.encoder.modelFile).toBe(join(dir, 'onnx', 'encoder_model.onnx'));
      expect(model.decoder.modelFile).toBe(join(dir, 'onnx', 'decoder_model_merged.onnx'));
    } finally {
      await lease.release();
    }
  });
});

describe('MT5Reranker graph errors', () => {
  it.each([
    [
      { encoder_file: 'decoder_model.onnx' },
      /decoder_model.onnx: the graph wants inputs irserve cannot fill: encoder_attention_mask, encoder_hidden_states/,
    ],
    [
      { decoder_file: 'encoder_model.onnx' },
      /encoder_model.onnx: the graph wants inputs irserve cannot fill: attention_mask \(a seq2seq decoder takes/,
    ],
    [
      { decoder_file: join(TINY_BERT, 'model.onnx') },
      /cannot fill: attention_mask, token_type_ids \(a seq2seq decoder takes input_ids/,
    ],
    [{ decoder_file: join(KV_CACHE, 'model.onnx') }, /needs the inputs encoder_hidden_states/],
    [
      { decoder_file: 'decoder_with_past_model.onnx' },
      /needs the past key values of an earlier step \(decoder_with_past_model.onnx\); use decoder_model.onnx or decoder_model_merged.onnx/,
    ],
    [
      { encoder_file: join(TINY_CROSS_ENCODER, 'model.onnx') },
      /must output last_hidden_state \[batch, sequence, hidden\]; it has logits/,
    ],
    [
      { encoder_file: 'missing.onnx' },
      /the encoder graph missing.onnx is missing \(encoder_file\)/,
    ],
    [
      { token_false: '▁nope', token_true: '▁true' },
      /no token "▁nope" \(token_false \/ token_true, from the config\)/,
    ],
  ])('%j is refused at start-up', async (config, message) => {
    await refused(withTokens({ model_path: TINY_T5, ...config }), message);
  });

  it('an unknown checkpoint without token_false/token_true is refused, naming the fix', async () => {
    await refused(
      { model_path: TINY_T5 },
      /"irserve\/tiny-t5" is none of them: set token_false and token_true/,
    );
  });
});

describe("RoutIR's answer tokens by checkpoint", () => {
  it('matches the name given, then its last path part; the config wins', () => {
    expect(predictionTokens({}, ['castorini/monot5-base-msmarco'])).toMatchObject({
      false: '▁false',
      true: '▁true',
    });
    expect(predictionTokens({}, ['models/MT5-base-mmarco-v2/'])).toMatchObject({
      false: '▁no',
      true: '▁yes',
    });
    expect(predictionTokens({}, ['elsewhere', 'unicamp-dl/mt5-13b-mmarco-100k'])?.false).toBe('▁');
    expect(predictionTokens({}, ['models/my-t5'])).toBeUndefined();
    expect(
      predictionTokens({ token_false: 'a', token_true: 'b' }, ['castorini/monot5-base-msmarco']),
    ).toEqual({ false: 'a', true: 'b', source: 'the config' });
  });

  describe('a folder named like a known checkpoint', () => {
    let app: App;
    beforeAll(async () => {
      const yesNo = t5Variant(join(scratch, 'mt5-base-mmarco-v2'));
      const trueFalse = t5Variant(join(scratch, 'monot5-base-msmarco'));
      app = await startApp(
        {
          services: [
            { name: 'yesno', engine: 'MT5Reranker', config: { model_name_or_path: yesNo } },
            { name: 'truefalse', engine: 'MT5Reranker', config: { model_path: trueFalse } },
          ],
        },
        scratch,
        [MT5Reranker],
      );
    });
    afterAll(async () => app?.close());

    it("scores with that checkpoint's tokens", async () => {
      const pair = REFERENCE.pairs[0]!;
      const body = { query: pair.query, passages: [pair.passage] };
      const tf = await post(app, '/score', { service: 'truefalse', ...body });
      expect(tf.body.scores[0]).toBeCloseTo(pair.score, 5);
      const yn = await post(app, '/score', { service: 'yesno', ...body });
      expect(yn.status).toBe(200);
      expect(yn.body.scores[0]).not.toBeCloseTo(pair.score, 3);
    });
  });
});
