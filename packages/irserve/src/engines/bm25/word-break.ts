/**
 * Word-break classes of Unicode UAX #29, as far as Lucene's StandardTokenizer uses them. The
 * classifier is an instance (no module state): an ASCII table plus a per-instance cache of the
 * other code points seen.
 */

/** Word-break classes (small integers, compared in the tokenizer's hot loop). */
export const OTHER = 0;
export const LETTER = 1;
export const NUMERIC = 2;
export const EXTEND_NUM_LET = 3;
export const MID_LETTER = 4;
export const MID_NUM_LET = 5;
export const MID_NUM = 6;
/** Extend, Format and ZWJ: ignored inside a word (WB4). */
export const EXTEND = 7;
export const KATAKANA = 8;
/** Han and Hiragana: one token per character. */
export const IDEOGRAPHIC = 9;

export type WordClass = number;

const MID_LETTER_CPS = new Set([0x3a, 0xb7, 0x387, 0x55f, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MID_NUM_LET_CPS = new Set([0x27, 0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const MID_NUM_CPS = new Set([
  0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54,
  0xff0c, 0xff1b,
]);

const IDEOGRAPHIC_RE = /[\p{Script=Han}\p{Script=Hiragana}]/u;
const KATAKANA_RE = /[\p{Script=Katakana}\u3031-\u3035\u309b\u309c\u30a0\u30fc\uff70]/u;
const LETTER_RE = /[\p{L}\p{Nl}]/u;
const NUMERIC_RE = /\p{Nd}/u;
const EXTEND_RE = /[\p{M}\p{Cf}]/u;
const EXTEND_NUM_LET_RE = /[\p{Pc}\u202f]/u;

/** Classifies one code point (no caching). */
export function classifyCodePoint(cp: number): WordClass {
  if (MID_LETTER_CPS.has(cp)) return MID_LETTER;
  if (MID_NUM_LET_CPS.has(cp)) return MID_NUM_LET;
  if (MID_NUM_CPS.has(cp)) return MID_NUM;
  if (cp < 0x80) return classifyAscii(cp);
  const ch = String.fromCodePoint(cp);
  if (IDEOGRAPHIC_RE.test(ch)) return IDEOGRAPHIC;
  if (KATAKANA_RE.test(ch)) return KATAKANA;
  if (LETTER_RE.test(ch)) return LETTER;
  if (NUMERIC_RE.test(ch)) return NUMERIC;
  if (EXTEND_RE.test(ch)) return EXTEND;
  if (EXTEND_NUM_LET_RE.test(ch)) return EXTEND_NUM_LET;
  return OTHER;
}

function classifyAscii(cp: number): WordClass {
  if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) return LETTER;
  if (cp >= 0x30 && cp <= 0x39) return NUMERIC;
  if (cp === 0x5f) return EXTEND_NUM_LET;
  return OTHER;
}

/** A caching classifier; one per tokenizer. */
export class WordClassifier {
  readonly #ascii: Uint8Array;
  readonly #other = new Map<number, WordClass>();

  constructor() {
    this.#ascii = new Uint8Array(128);
    for (let cp = 0; cp < 128; cp++) this.#ascii[cp] = classifyCodePoint(cp);
  }

  classOf(cp: number): WordClass {
    if (cp < 128) return this.#ascii[cp]!;
    let cls = this.#other.get(cp);
    if (cls === undefined) {
      cls = classifyCodePoint(cp);
      if (this.#other.size < 65_536) this.#other.set(cp, cls);
    }
    return cls;
  }
}
