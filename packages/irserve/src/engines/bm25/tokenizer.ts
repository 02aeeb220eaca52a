/**
 * A tokenizer close to Lucene's StandardTokenizer (UAX #29 word boundaries): letters and digits
 * join (`abc123`), `_` joins words (`foo_bar`), letters join across `'`, `.`, `:` (`don't`,
 * `u.s.a`, `a:b`), digits across `.`, `,`, `;` (`3.14`, `1,000`); Han and Hiragana characters are
 * one token each; Katakana runs are one token; combining marks and format characters stay inside
 * a word. Everything else separates tokens. Tokens longer than 255 UTF-16 units are cut into
 * 255-unit pieces, as Lucene does. Differences from Lucene: emoji are not emitted as tokens, and
 * the Hebrew-letter and regional-indicator rules are not modelled.
 */
import {
  EXTEND,
  EXTEND_NUM_LET,
  IDEOGRAPHIC,
  KATAKANA,
  LETTER,
  MID_LETTER,
  MID_NUM,
  MID_NUM_LET,
  NUMERIC,
  WordClassifier,
} from './word-break.js';

/** Lucene's default `maxTokenLength`. */
export const MAX_TOKEN_LENGTH = 255;

export class StandardTokenizer {
  readonly #classes = new WordClassifier();

  /**
   * Calls `emit` with each token of `text`, in order.
   *
   * @example
   * new StandardTokenizer().tokenize("Don't stop: 3.14 U.S.A.", (t) => console.log(t));
   * // Don't, stop, 3.14, U.S.A
   */
  tokenize(text: string, emit: (token: string) => void): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      const cp = text.codePointAt(i)!;
      const cls = this.#classes.classOf(cp);
      if (cls === LETTER || cls === NUMERIC || cls === EXTEND_NUM_LET) {
        const end = this.#wordEnd(text, i, cls);
        if (cls !== EXTEND_NUM_LET || this.#hasAlnum(text, i, end)) emitPieces(text, i, end, emit);
        i = end;
      } else if (cls === KATAKANA) {
        const end = this.#katakanaEnd(text, i);
        emitPieces(text, i, end, emit);
        i = end;
      } else if (cls === IDEOGRAPHIC) {
        const end = this.#skipExtend(text, i + (cp > 0xffff ? 2 : 1));
        emit(text.slice(i, end));
        i = end;
      } else {
        i += cp > 0xffff ? 2 : 1;
      }
    }
  }

  /** End of the word starting at `start` (class `first`: letter, digit or `_`). */
  #wordEnd(text: string, start: number, first: number): number {
    const n = text.length;
    let last = first;
    let i = start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
    while (i < n) {
      const cp = text.codePointAt(i)!;
      const cls = this.#classes.classOf(cp);
      const width = cp > 0xffff ? 2 : 1;
      if (cls === LETTER || cls === NUMERIC || cls === EXTEND_NUM_LET) {
        last = cls;
        i += width;
      } else if (cls === EXTEND) {
        i += width;
      } else if (cls === MID_LETTER || cls === MID_NUM_LET || cls === MID_NUM) {
        const next = this.#skipExtend(text, i + width);
        if (next >= n) return i;
        const after = this.#classes.classOf(text.codePointAt(next)!);
        const letters = last === LETTER && after === LETTER && cls !== MID_NUM;
        const digits = last === NUMERIC && after === NUMERIC && cls !== MID_LETTER;
        if (!letters && !digits) return i;
        i = next;
      } else {
        return i;
      }
    }
    return i;
  }

  #katakanaEnd(text: string, start: number): number {
    const n = text.length;
    let i = start;
    while (i < n) {
      const cp = text.codePointAt(i)!;
      const cls = this.#classes.classOf(cp);
      if (cls !== KATAKANA && cls !== EXTEND && cls !== EXTEND_NUM_LET) return i;
      i += cp > 0xffff ? 2 : 1;
    }
    return i;
  }

  #skipExtend(text: string, start: number): number {
    let i = start;
    while (i < text.length) {
      const cp = text.codePointAt(i)!;
      if (this.#classes.classOf(cp) !== EXTEND) return i;
      i += cp > 0xffff ? 2 : 1;
    }
    return i;
  }

  /** Whether a span holds a letter or a digit (a run of `_` alone is no token). */
  #hasAlnum(text: string, start: number, end: number): boolean {
    for (let i = start; i < end; i++) {
      const cls = this.#classes.classOf(text.codePointAt(i)!);
      if (cls === LETTER || cls === NUMERIC) return true;
    }
    return false;
  }
}

function emitPieces(text: string, start: number, end: number, emit: (token: string) => void) {
  for (let s = start; s < end; s += MAX_TOKEN_LENGTH) {
    emit(text.slice(s, Math.min(end, s + MAX_TOKEN_LENGTH)));
  }
}
