/**
 * The `.npy` header: a Python dict literal such as
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`. A tiny literal parser, never
 * an evaluator: strings, integers, booleans, None, tuples, lists and dicts only.
 */
import { FormatError } from './errors.js';

export type Literal = string | number | boolean | null | Literal[] | { [key: string]: Literal };

export interface NpyHeader {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
}

/** Parses and checks the header dict of a `.npy` file. */
export function parseNpyHeader(text: string, file: string): NpyHeader {
  const parser = new LiteralParser(text, file);
  const value = parser.parseDocument();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FormatError(file, 'npy header is not a dict');
  }
  const { descr, fortran_order: fortranOrder, shape } = value;
  if (Array.isArray(descr)) throw new FormatError(file, 'structured dtypes are not supported');
  if (typeof descr !== 'string') throw new FormatError(file, "npy header lacks a string 'descr'");
  if (typeof fortranOrder !== 'boolean')
    throw new FormatError(file, "npy header lacks 'fortran_order'");
  if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number')) {
    throw new FormatError(file, "npy header lacks a tuple 'shape'");
  }
  return { descr, fortranOrder, shape: shape };
}

/** Formats the header dict the way numpy does (keys sorted, trailing comma in 1-tuples). */
export function formatNpyHeader(header: NpyHeader): string {
  const shape =
    header.shape.length === 1 ? `(${header.shape[0]},)` : `(${header.shape.join(', ')})`;
  const order = header.fortranOrder ? 'True' : 'False';
  return `{'descr': '${header.descr}', 'fortran_order': ${order}, 'shape': ${shape}, }`;
}

class LiteralParser {
  #at = 0;
  #depth = 0;
  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  parseDocument(): Literal {
    const value = this.value();
    this.skip();
    if (this.#at !== this.text.length) this.fail('trailing characters');
    return value;
  }

  private fail(what: string): never {
    throw new FormatError(this.file, `bad npy header at column ${this.#at + 1}: ${what}`);
  }

  private skip(): void {
    while (this.#at < this.text.length && /\s/.test(this.text[this.#at]!)) this.#at++;
  }

  private value(): Literal {
    this.skip();
    const c = this.text[this.#at];
    if (c === '{' || c === '(' || c === '[') {
      // Headers are flat; a deep nest is hostile, and recursion must stay bounded.
      if (++this.#depth > 16) this.fail('nesting too deep');
      const result = c === '{' ? this.dict() : this.sequence(c === '(' ? ')' : ']');
      this.#depth--;
      return result;
    }
    if (c === "'" || c === '"') return this.string(c);
    const word = /^(?:-?\d+L?|True|False|None)/.exec(this.text.slice(this.#at, this.#at + 32));
    if (!word) this.fail('expected a value');
    this.#at += word[0].length;
    if (word[0] === 'True' || word[0] === 'False') return word[0] === 'True';
    if (word[0] === 'None') return null;
    const n = Number(word[0].replace('L', ''));
    if (!Number.isSafeInteger(n)) this.fail('integer out of range');
    return n;
  }

  private string(quote: string): string {
    const end = this.text.indexOf(quote, this.#at + 1);
    if (end < 0) this.fail('unterminated string');
    const body = this.text.slice(this.#at + 1, end);
    if (body.includes('\\')) this.fail('escapes are not supported');
    this.#at = end + 1;
    return body;
  }

  private sequence(close: string): Literal[] {
    this.#at++;
    const items: Literal[] = [];
    for (;;) {
      this.skip();
      if (this.text[this.#at] === close) break;
      items.push(this.value());
      this.skip();
      if (this.text[this.#at] === ',') this.#at++;
      else if (this.text[this.#at] !== close) this.fail(`expected ',' or '${close}'`);
    }
    this.#at++;
    return items;
  }

  private dict(): { [key: string]: Literal } {
    this.#at++;
    const out: { [key: string]: Literal } = Object.create(null) as { [key: string]: Literal };
    for (;;) {
      this.skip();
      if (this.text[this.#at] === '}') break;
      const key = this.value();
      if (typeof key !== 'string') this.fail('dict keys must be strings');
      this.skip();
      if (this.text[this.#at++] !== ':') this.fail("expected ':'");
      out[key] = this.value();
      this.skip();
      if (this.text[this.#at] === ',') this.#at++;
      else if (this.text[this.#at] !== '}') this.fail("expected ',' or '}'");
    }
    this.#at++;
    return out;
  }
}
