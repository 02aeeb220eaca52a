/**
 * The BERT WordPiece fast path against `@huggingface/tokenizers` itself: the same ids for every
 * text, including the ones it hands back to the library (non-ASCII, added tokens).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TextTokenizer } from '@irserve/onnx';
import { fastWordPieceFor } from '../src/tokenizer/fast-wordpiece.js';
import { createHfTokenizer } from '../src/tokenizer/hf-tokenizer.js';
import { TINY_BERT } from './helpers.js';

const json = JSON.parse(readFileSync(join(TINY_BERT, 'tokenizer.json'), 'utf8')) as Record<
  string,
  unknown
>;
const config = JSON.parse(readFileSync(join(TINY_BERT, 'tokenizer_config.json'), 'utf8')) as Record<
  string,
  unknown
>;

/** The ids the library gives, mapped the way TextTokenizer maps them. */
function libraryIds(tokenizerJson: Record<string, unknown>, text: string): number[] {
  const library = createHfTokenizer(tokenizerJson, config);
  const added = new Map(
    [...library.get_added_tokens_decoder()].map(([id, token]) => [token.content, id]),
  );
  return library
    .tokenize(text, { add_special_tokens: false })
    .map((token) => added.get(token) ?? library.token_to_id(token) ?? -1);
}

/** mulberry32, so a failure replays. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['the', 'Quick', 'DOGS', 'jumping', 'rank', 'reranked', 'xyz', '[CLS]', '[sep]'];
const PIECES = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\u0001',
  '\u000b',
  '\u001f',
  '?',
  '-',
  "'",
  '$',
  '`',
  '~',
  '|',
  '7',
];

function randomText(random: () => number): string {
  let text = '';
  const parts = Math.floor(random() * 12);
  for (let i = 0; i < parts; i++) {
    const pick = random();
    if (pick < 0.45) text += WORDS[Math.floor(random() * WORDS.length)];
    else if (pick < 0.8) text += PIECES[Math.floor(random() * PIECES.length)];
    else if (pick < 0.95) text += String.fromCharCode(32 + Math.floor(random() * 95));
    else text += 'a'.repeat(90 + Math.floor(random() * 20)); // around max_input_chars_per_word
  }
  return text;
}

/** The fast path of the tiny BERT, with its two special tokens as added tokens. */
const fast = fastWordPieceFor(json, config, new Map(Object.entries({ '[CLS]': 2, '[SEP]': 3 })))!;

describe('the BERT WordPiece fast path', () => {
  it('gives the library ids on 3,000 random ASCII texts (controls, punctuation, long words, added tokens)', () => {
    const tokenizer = new TextTokenizer(json, config);
    const random = seeded(7);
    let taken = 0;
    for (let n = 0; n < 3000; n++) {
      const text = randomText(random);
      if (fast.ids(text) !== undefined) taken++;
      expect({ text, ids: tokenizer.tokenize(text) }).toEqual({
        text,
        ids: libraryIds(json, text),
      });
    }
    expect(taken).toBeGreaterThan(1500); // most of them went through the fast path
  });

  it('takes ASCII text itself and leaves non-ASCII and added tokens to the library', () => {
    expect(fast.ids('Hello world, the dogs jumping!')).toEqual([13, 14, 51, 5, 12, 110, 9, 47, 53]);
    expect(fast.ids('hello [CLS] world')).toBeUndefined();
    expect(fast.ids('hello [sep] world')).toBeUndefined();
    expect(fast.ids('café')).toBeUndefined();
    expect(fast.ids('\u007f')).toBeUndefined();
    const tokenizer = new TextTokenizer(json, config);
    for (const text of ['café crème', '中文 search', 'naïve [SEP] x', 'emoji 🎉 rank'])
      expect(tokenizer.tokenize(text)).toEqual(libraryIds(json, text));
  });

  it('keeps case for a cased tokenizer, and stays off for anything but BERT WordPiece', () => {
    const cased = {
      ...json,
      normalizer: { ...(json.normalizer as object), lowercase: false },
    } as Record<string, unknown>;
    const tokenizer = new TextTokenizer(cased, config);
    for (const text of ['The Quick dogs', 'HELLO world', 'the quick'])
      expect(tokenizer.tokenize(text)).toEqual(libraryIds(cased, text));
    const none = new Map<string, number>();
    expect(
      fastWordPieceFor({ ...json, pre_tokenizer: { type: 'Whitespace' } }, config, none),
    ).toBeUndefined();
    expect(fastWordPieceFor({ ...json, normalizer: null }, config, none)).toBeUndefined();
    expect(fastWordPieceFor(json, { ...config, remove_space: true }, none)).toBeUndefined();
    expect(
      fastWordPieceFor(
        { ...json, model: { ...(json.model as object), type: 'BPE' } },
        config,
        none,
      ),
    ).toBeUndefined();
  });
});
