import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  TextTokenizer,
  loadModelFolder,
  truncatePair,
  fillTemplate,
  splitTemplate,
} from '@irserve/onnx';
import { TINY_BERT, TINY_YES_NO, UNIGRAM_TOKENIZER } from './helpers.js';

const wordPiece = TextTokenizer.fromFolder(await loadModelFolder(TINY_BERT));
const bpe = TextTokenizer.fromFolder(await loadModelFolder(TINY_YES_NO));
const unigram = new TextTokenizer(
  JSON.parse(readFileSync(UNIGRAM_TOKENIZER, 'utf8')) as Record<string, unknown>,
);

describe('TextTokenizer: known ids', () => {
  it('WordPiece: lower-cases, splits sub-words and adds [CLS] ... [SEP]', () => {
    const row = wordPiece.encode('Hello world, the dogs jumping!', { maxLength: 64 });
    expect(row.ids).toEqual([2, 13, 14, 51, 5, 12, 110, 9, 47, 53, 3]);
    expect(row.truncated).toBe(false);
  });

  it('WordPiece pairs: [CLS] A [SEP] B [SEP] with token types 0 then 1', () => {
    const row = wordPiece.encode(
      { text: 'hello world', pair: 'what is a cat?' },
      { maxLength: 64 },
    );
    expect(row.ids).toEqual([2, 13, 14, 3, 22, 21, 56, 19, 52, 3]);
    expect(row.typeIds).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
  });

  it('byte-level BPE: merges and the chat special tokens', () => {
    expect(bpe.encode('the cat query', { maxLength: 64 }).ids).toEqual([
      bpe.tokenId('t'),
      bpe.tokenId('he'),
      bpe.tokenId('Ġcat'),
      bpe.tokenId('Ġquery'),
    ]);
    const chat = bpe.encode('<|im_start|>yes<|im_end|>', { maxLength: 64 }).ids;
    expect(chat).toEqual([
      bpe.tokenId('<|im_start|>'),
      bpe.tokenId('yes'),
      bpe.tokenId('<|im_end|>'),
    ]);
    expect(bpe.tokenId('<|im_start|>')).toBe(276);
  });

  it('Unigram (SentencePiece): metaspace pieces, <unk>, and </s> appended', () => {
    expect(unigram.encode('the cats  world', { maxLength: 64 }).ids).toEqual([
      4,
      18,
      unigram.tokenId('s'),
      13,
      1,
    ]);
    expect(unigram.tokenId('▁cat')).toBe(18);
    expect(unigram.encode('Hello', { maxLength: 64 }).ids).toEqual([3, 2, 49, 56, 56, 59, 1]);
  });
});

describe('TextTokenizer: truncation', () => {
  it('keeps the special tokens when a text is cut', () => {
    const row = wordPiece.encode('hello world the quick brown fox', { maxLength: 5 });
    expect(row.ids).toEqual([2, 13, 14, 5, 3]);
    expect(row.truncated).toBe(true);
  });

  it('cuts the longer text of a pair first, so a short query stays whole', () => {
    const row = wordPiece.encode(
      { text: 'what is a cat', pair: 'the quick brown fox jump over the lazy dog' },
      { maxLength: 10 },
    );
    expect(row.ids).toEqual([2, 22, 21, 56, 19, 3, 5, 6, 7, 3]);
    expect(row.ids).toHaveLength(10);
  });

  it('cuts only the slot of a template, never its prefix or suffix', () => {
    const [prefix, suffix] = splitTemplate('<|im_start|>{query}: {passage}<|im_end|>', 'passage', {
      query: 'cat',
    });
    const row = bpe.encode({ prefix, text: 'the cat '.repeat(50), suffix }, { maxLength: 12 });
    expect(row.ids).toHaveLength(12);
    expect(row.ids[0]).toBe(bpe.tokenId('<|im_start|>'));
    expect(row.ids.at(-1)).toBe(bpe.tokenId('<|im_end|>'));
    expect(row.truncated).toBe(true);
  });

  it('a megabyte passage is cut without tokenizing all of it', () => {
    const huge = 'the quick brown fox '.repeat(60_000);
    const started = performance.now();
    const row = wordPiece.encode({ text: 'cat', pair: huge }, { maxLength: 16 });
    expect(row.ids).toHaveLength(16);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('truncatePair strategies', () => {
    expect(truncatePair([1, 2, 3], [4, 5, 6, 7, 8], 4)).toEqual([
      [1, 2],
      [4, 5],
    ]);
    expect(truncatePair([1, 2, 3], [4, 5, 6, 7, 8], 4, 'only_second')).toEqual([[1, 2, 3], [4]]);
    expect(truncatePair([1, 2, 3], [4], 2, 'only_first')).toEqual([[1], [4]]);
    expect(truncatePair([1, 2], undefined, 0)).toEqual([[], undefined]);
  });
});

describe('TextTokenizer: batches', () => {
  it('pads to the longest row on the right, with a zero mask on padding', () => {
    const batch = wordPiece.encodeBatch(['hello', 'the quick brown fox'], { maxLength: 32 });
    expect(batch.length).toBe(6);
    expect([...batch.inputIds.slice(0, 6)].map(Number)).toEqual([2, 13, 3, 0, 0, 0]);
    expect([...batch.attentionMask.slice(0, 6)].map(Number)).toEqual([1, 1, 1, 0, 0, 0]);
    expect(batch.lengths).toEqual([3, 6]);
  });

  it('pads on the left when the tokenizer config says so (decoder LLMs)', () => {
    const batch = bpe.encodeBatch(['yes', 'the cat'], { maxLength: 32 });
    expect(batch.paddingSide).toBe('left');
    expect([...batch.attentionMask.slice(0, batch.length)].map(Number)).toEqual([0, 0, 1]);
    expect(Number(batch.inputIds[0])).toBe(bpe.padId);
  });

  it('hostile text: empty, control characters, emoji, lone surrogates', () => {
    const batch = wordPiece.encodeBatch(['', '\u0000\u0007\u200b', '🦊🦊 fox', 'a\ud800b'], {
      maxLength: 8,
    });
    expect(batch.size).toBe(4);
    expect(batch.lengths.every((n) => n >= 2 && n <= 8)).toBe(true);
  });

  it('templates fill placeholders once, never re-scanning values', () => {
    expect(fillTemplate('q: {query} {other}', { query: '{passage}' })).toBe('q: {passage} {other}');
    expect(() => splitTemplate('no slot', 'passage', {})).toThrow(/\{passage\} exactly once/);
  });
});
