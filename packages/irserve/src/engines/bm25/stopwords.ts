/**
 * Stop word sets. The default is Lucene's English stop set (EnglishAnalyzer's
 * ENGLISH_STOP_WORDS_SET, 33 words), which Anserini's default analyzer also uses.
 */

/** Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`. */
export const LUCENE_ENGLISH_STOP_WORDS: readonly string[] = Object.freeze([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);

/** The `stopwords` setting: a named set or an explicit list. */
export type StopwordsSetting = 'lucene' | 'none' | readonly string[];

/**
 * The stop words of a setting, lowercased, deduplicated and sorted (a stable form for the
 * index key).
 *
 * @example
 * resolveStopwords('lucene').length // 33
 */
export function resolveStopwords(setting: StopwordsSetting): string[] {
  const words =
    setting === 'lucene' ? LUCENE_ENGLISH_STOP_WORDS : setting === 'none' ? [] : setting;
  return [...new Set(words.map((word) => word.toLowerCase()))].sort();
}
