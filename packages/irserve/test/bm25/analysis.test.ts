import { describe, expect, it } from 'vitest';
import { Analyzer } from '../../src/engines/bm25/analyzer.js';
import { stripPossessive } from '../../src/engines/bm25/analyzer.js';
import { LUCENE_ENGLISH_STOP_WORDS, resolveStopwords } from '../../src/engines/bm25/stopwords.js';
import { StandardTokenizer } from '../../src/engines/bm25/tokenizer.js';

const tokens = (text: string) => {
  const out: string[] = [];
  new StandardTokenizer().tokenize(text, (t) => out.push(t));
  return out;
};

describe('StandardTokenizer (UAX #29, as Lucene)', () => {
  it.each([
    ['plain words, punctuation dropped', 'Hello, world!  (again)', ['Hello', 'world', 'again']],
    ['apostrophes inside words', "don't O'Neil's", ["don't", "O'Neil's"]],
    ['letters across dots; trailing dot dropped', 'U.S.A. e.g. end.', ['U.S.A', 'e.g', 'end']],
    ['numbers with separators', '3.14 1,000,000 10;20', ['3.14', '1,000,000', '10;20']],
    ['letters and digits join', 'abc123 4th CD4+', ['abc123', '4th', 'CD4']],
    ['hyphens split', 'well-known IL-6', ['well', 'known', 'IL', '6']],
    ['underscore joins, alone is no token', 'foo_bar ___ _x', ['foo_bar', '_x']],
    ['colon between letters joins (MidLetter)', 'a:b 1:2', ['a:b', '1', '2']],
    ['comma between letters splits', 'a,b', ['a', 'b']],
    [
      'Han and Hiragana one per character',
      '日本語 ひらがな',
      ['日', '本', '語', 'ひ', 'ら', 'が', 'な'],
    ],
    ['Katakana runs stay whole', 'テキスト データ', ['テキスト', 'データ']],
    [
      'combining marks and soft hyphens stay inside',
      'cafe\u0301 co\u00adop',
      ['cafe\u0301', 'co\u00adop'],
    ],
    ['accented letters', 'naïve Ångström', ['naïve', 'Ångström']],
    ['curly apostrophe', 'dog\u2019s', ['dog\u2019s']],
  ])('%s', (_name, text, expected) => {
    expect(tokens(text)).toEqual(expected);
  });

  it('cuts tokens longer than 255 units', () => {
    const long = 'a'.repeat(600);
    expect(tokens(long).map((t) => t.length)).toEqual([255, 255, 90]);
  });
});

describe('EnglishPossessiveFilter', () => {
  it.each([
    ["dog's", 'dog'],
    ['DOG\u2019S', 'DOG'],
    ['dog\uff07s', 'dog'],
    ["'s", ''],
    ['dogs', 'dogs'],
    ["dogs'", "dogs'"],
  ])('%s -> %s', (input, output) => {
    expect(stripPossessive(input)).toBe(output);
  });
});

describe('stop words', () => {
  it('has the 33 words of Lucene EnglishAnalyzer.ENGLISH_STOP_WORDS_SET', () => {
    expect(LUCENE_ENGLISH_STOP_WORDS).toHaveLength(33);
    expect(resolveStopwords('lucene')).toContain('their');
    expect(resolveStopwords('none')).toEqual([]);
    expect(resolveStopwords(['The', 'of', 'the'])).toEqual(['of', 'the']);
  });
});

describe('Porter stemming (matches Lucene PorterStemFilter)', () => {
  const porter = new Analyzer({ stemmer: 'porter', stopwords: [] });
  // Expected stems from the reference vocabulary of Porter's algorithm (tartarus.org
  // voc.txt / output.txt, which Lucene's TestPorterStemFilter also uses).
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'ti'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['disabled', 'disabl'],
    ['matting', 'mat'],
    ['mating', 'mate'],
    ['meeting', 'meet'],
    ['milling', 'mill'],
    ['messing', 'mess'],
    ['meetings', 'meet'],
    ['happy', 'happi'],
    ['sky', 'sky'],
    ['relational', 'relat'],
    ['generalizations', 'gener'],
    ['oscillators', 'oscil'],
    ['abilities', 'abil'],
    ['able', 'abl'],
    ['abominable', 'abomin'],
    ['absolutely', 'absolut'],
    ['abundance', 'abund'],
    ['academy', 'academi'],
    ['accident', 'accid'],
    ['accidental', 'accident'],
    ['accommodation', 'accommod'],
    ['accompanied', 'accompani'],
    ['accordingly', 'accordingli'],
    ['accurately', 'accur'],
    ['accusation', 'accus'],
    ['activity', 'activ'],
    ['aerodynamics', 'aerodynam'],
    ['hopefulness', 'hope'],
    ['sensibiliti', 'sensibl'],
    ['analogousli', 'analog'],
    ['conformabli', 'conform'],
    ['archaeology', 'archaeolog'],
    ['controlling', 'control'],
    ['is', 'is'],
  ])('%s -> %s', (word, stem) => {
    expect(porter.analyze(word)).toEqual([stem]);
  });
});

describe('Analyzer chain', () => {
  it('tokenizes, strips possessives, lowercases, drops stop words, stems', () => {
    const analyzer = new Analyzer({ stemmer: 'porter', stopwords: resolveStopwords('lucene') });
    expect(
      analyzer.analyze("The Wing's slipstream effects: an EXPERIMENTAL study of U.S. wings"),
    ).toEqual([
      'wing',
      'slipstream',
      'effect',
      'experiment',
      'studi',
      'u.', // Porter strips the final s of u.s, in Lucene too
      'wing',
    ]);
  });

  it('keeps words as they are with stemmer none and no stop words', () => {
    const analyzer = new Analyzer({ stemmer: 'none', stopwords: [] });
    expect(analyzer.analyze('The Studies')).toEqual(['the', 'studies']);
  });
});
