/**
 * The analysis chain of Anserini's default English analyzer (and Lucene's EnglishAnalyzer):
 * StandardTokenizer, EnglishPossessiveFilter, lowercase, stop words, Porter stemmer.
 */
import { stemmer as porterStem } from 'stemmer';
import { StandardTokenizer } from './tokenizer.js';

export type StemmerName = 'porter' | 'none';

export interface AnalysisSettings {
  stemmer: StemmerName;
  /** Lowercased stop words. */
  stopwords: readonly string[];
}

/** Stems kept per analyzer before the cache is cleared (bounds memory on huge vocabularies). */
const STEM_CACHE_LIMIT = 200_000;

/** Removes a trailing `'s` (also with U+2019 or U+FF07), like Lucene's EnglishPossessiveFilter. */
export function stripPossessive(token: string): string {
  const n = token.length;
  if (n < 2) return token;
  const last = token.charCodeAt(n - 1);
  const quote = token.charCodeAt(n - 2);
  if ((last === 0x73 || last === 0x53) && (quote === 0x27 || quote === 0x2019 || quote === 0xff07))
    return token.slice(0, n - 2);
  return token;
}

/**
 * Turns text into index terms. One instance per thread; it caches stems.
 *
 * @example
 * new Analyzer({ stemmer: 'porter', stopwords: ['the'] }).analyze("The Wing's slipstreams")
 * // ['wing', 'slipstream']
 */
export class Analyzer {
  readonly #tokenizer = new StandardTokenizer();
  readonly #stopwords: ReadonlySet<string>;
  readonly #stem: ((token: string) => string) | undefined;
  readonly #stems = new Map<string, string>();

  constructor(settings: AnalysisSettings) {
    this.#stopwords = new Set(settings.stopwords);
    this.#stem = settings.stemmer === 'porter' ? porterStem : undefined;
  }

  /** The terms of `text`, in order (repeats kept). */
  analyze(text: string): string[] {
    const terms: string[] = [];
    this.forEachTerm(text, (term) => terms.push(term));
    return terms;
  }

  /** Calls `emit` with each term of `text`, in order. */
  forEachTerm(text: string, emit: (term: string) => void): void {
    this.#tokenizer.tokenize(text, (token) => {
      const word = stripPossessive(token).toLowerCase();
      if (word.length === 0 || this.#stopwords.has(word)) return;
      emit(this.#stemmed(word));
    });
  }

  #stemmed(word: string): string {
    if (this.#stem === undefined) return word;
    let stem = this.#stems.get(word);
    if (stem === undefined) {
      stem = this.#stem(word);
      if (this.#stems.size >= STEM_CACHE_LIMIT) this.#stems.clear();
      this.#stems.set(word, stem);
    }
    return stem;
  }
}
