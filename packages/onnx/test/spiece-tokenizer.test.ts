/**
 * A T5 folder with spiece.model and no tokenizer.json: irserve's ids equal SentencePiece's own
 * (fixtures/make-spiece.py trains the model and writes the reference ids with sentencepiece),
 * with `</s>` appended as transformers' T5Tokenizer does.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import {
  MT5Reranker,
  TextTokenizer,
  loadModelFolder,
  parseSentencePieceModel,
} from '@irserve/onnx';
import { post, startApp, testWorld, type TestWorld } from './app-helpers.js';
import { checkpointCopy } from './checkpoint-helpers.js';
import { FIXTURES } from './helpers.js';

const SPIECE = `${FIXTURES}spiece/`;

interface Expected {
  vocab_size: number;
  pad_id: number;
  eos_id: number;
  unk_id: number;
  cases: { text: string; ids: number[]; with_eos: number[] }[];
}

const expected = JSON.parse(readFileSync(`${SPIECE}expected.json`, 'utf8')) as Expected;

describe('spiece.model (SentencePiece Unigram, as T5 repositories ship it)', () => {
  let dir: string;
  let tokenizer: TextTokenizer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-spiece-'));
    await copyFile(`${SPIECE}spiece.model`, join(dir, 'spiece.model'));
    await writeFile(join(dir, 'model.onnx'), '');
    tokenizer = TextTokenizer.fromFolder(await loadModelFolder(dir));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads every piece with its score and type', () => {
    const model = parseSentencePieceModel(readFileSync(`${SPIECE}spiece.model`));
    expect(model.pieces).toHaveLength(expected.vocab_size);
    expect(model.pieces.slice(0, 3).map((p) => p.piece)).toEqual(['<pad>', '</s>', '<unk>']);
    expect(model.normalizer.name).toBe('nmt_nfkc');
    expect(model.modelType).toBe(1);
  });

  it.each(expected.cases.map((c) => [JSON.stringify(c.text), c] as const))(
    '%s: the ids sentencepiece gives, then </s> as T5Tokenizer appends it',
    (_, { text, ids, with_eos }) => {
      expect(tokenizer.tokenize(text)).toEqual(ids);
      expect(tokenizer.encode(text, { maxLength: 512 }).ids).toEqual(with_eos);
    },
  );

  it('pads with <pad>, and knows </s>, <unk> and the T5 sentinels after the pieces', () => {
    expect(tokenizer.padId).toBe(expected.pad_id);
    expect(tokenizer.tokenId('</s>')).toBe(expected.eos_id);
    expect(tokenizer.tokenId('<unk>')).toBe(expected.unk_id);
    expect(tokenizer.tokenId('<extra_id_0>')).toBe(expected.vocab_size + 99);
    expect(tokenizer.tokenId('<extra_id_99>')).toBe(expected.vocab_size);
  });

  it('a pair is A </s> B </s>; truncation keeps the trailing </s>', () => {
    const [a, b] = [expected.cases[0]!, expected.cases[1]!];
    const pair = tokenizer.encode({ text: a.text, pair: b.text }, { maxLength: 512 });
    expect(pair.ids).toEqual([...a.with_eos, ...b.with_eos]);
    const cut = tokenizer.encode(a.text, { maxLength: 4 });
    expect(cut.ids).toEqual([...a.ids.slice(0, 3), expected.eos_id]);
    expect(cut.truncated).toBe(true);
  });

  it('a file that is not a SentencePiece model is an ERR_CONFIG naming it', async () => {
    await writeFile(join(dir, 'spiece.model'), Buffer.from([0x0a, 0xff, 0xff, 0x01]));
    await expect(loadModelFolder(dir)).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringMatching(/spiece\.model is truncated/) as unknown,
    });
  });
});

describe('MT5Reranker on a T5 checkpoint folder with spiece.model and no tokenizer.json', () => {
  let world: TestWorld;
  let dir: string;
  let app: App;

  beforeAll(async () => {
    world = await testWorld();
    dir = await checkpointCopy('t5', {});
    await unlink(join(dir, 'tokenizer.json'));
    await copyFile(`${SPIECE}spiece.model`, join(dir, 'spiece.model'));
    const config = {
      model_name_or_path: dir,
      // Pieces of the tiny SentencePiece model (it has no ▁true / ▁false).
      token_false: '▁dog',
      token_true: '▁query',
      batch_size: 2,
    };
    app = await startApp(
      { services: [{ name: 'mono', engine: 'MT5Reranker', config }] },
      world.dir,
      [MT5Reranker],
    );
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts and scores; a batch gives the one-by-one scores', async () => {
    const query = 'what is the capital of france';
    const passages = ['paris is the capital', 'a dog is a friend', 'café   crème 2024'];
    const { status, body } = await post(app, '/score', { service: 'mono', query, passages });
    expect(status).toBe(200);
    const scores = body.scores as number[];
    expect(scores).toHaveLength(3);
    for (const score of scores) expect(Number.isFinite(score)).toBe(true);
    expect(new Set(scores).size).toBe(3);
    for (const [i, passage] of passages.entries()) {
      const alone = await post(app, '/score', { service: 'mono', query, passages: [passage] });
      expect((alone.body.scores as number[])[0]).toBeCloseTo(scores[i]!, 5);
    }
  });
});
